#!/usr/bin/env bash
# What docs/sgemm-ladder.md's profiler columns come from: Nsight Compute over the gemm ladder
# and cuBLAS at one size, one profiled launch each (plus the validation launch), clocks left as
# they are (--clock-control none).
#   scripts/profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS] [TYPE]
# TYPE float (default): SMEM-5, gemm6 … gemm10's configurations, into OUTDIR/ncu_sgemm.{csv,md};
# TYPE double: gemm9, gemm10 and gemm11 (the FP64 tensor cores), into OUTDIR/ncu_dgemm.{csv,md}.
# BIN_DIR: where compare is (default /tmp/kl-build).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS] [TYPE]}"
size="${2:-4096}"
type="${4:-float}"
case "$type" in
  float) name=ncu_sgemm; default_globs='gemm_smem5*,gemm[6-9]*,gemm10_swizzled*' ;;
  double) name=ncu_dgemm; default_globs='gemm9*,gemm10_swizzled*,gemm11_dmma_128*' ;;
  *) echo "profile-sgemm.sh: TYPE must be float or double, not '$type'" >&2; exit 2 ;;
esac
globs="${3:-$default_globs}"
bin="${BIN_DIR:-/tmp/kl-build}"
mkdir -p "$out"
metrics=smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,\
smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis)
ncu --clock-control none --kernel-name regex:'kernel_|gemm|xmma' "${sections[@]}" --metrics "$metrics" \
  --csv --page raw "$bin/compare" -f gemm -t "$type" -s "$size" -v "$globs" --warmup 0 \
  --min-samples 1 --max-samples 1 --no-files -q > "$out/$name.csv"
python3 scripts/ncu_table.py "$out/$name.csv" > "$out/$name.md"
cat "$out/$name.md"
