#!/usr/bin/env bash
# What docs/sgemm-ladder.md's profiler columns come from: Nsight Compute over the float gemm
# ladder (SMEM-5, gemm6 … gemm9's configurations) and cuBLAS at one size, one profiled launch
# each (plus the validation launch), clocks left as they are (--clock-control none).
#   scripts/profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS]
# BIN_DIR: where compare is (default /tmp/kl-build). Writes OUTDIR/ncu_sgemm.csv (raw) and
# OUTDIR/ncu_sgemm.md (the table).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS]}"
size="${2:-4096}"
globs="${3:-gemm_smem5*,gemm[6-9]*}"
bin="${BIN_DIR:-/tmp/kl-build}"
mkdir -p "$out"
metrics=smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed.sum,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis)
ncu --clock-control none --kernel-name regex:'kernel_|gemm|xmma' "${sections[@]}" --metrics "$metrics" \
  --csv --page raw "$bin/compare" -f gemm -t float -s "$size" -v "$globs" --warmup 0 \
  --min-samples 1 --max-samples 1 --no-files -q > "$out/ncu_sgemm.csv"
python3 scripts/ncu_table.py "$out/ncu_sgemm.csv" > "$out/ncu_sgemm.md"
cat "$out/ncu_sgemm.md"
