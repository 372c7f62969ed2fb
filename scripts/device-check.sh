#!/usr/bin/env bash
# What produced results/: on a GPU machine, build, run both suites, compute-sanitizer
# (memcheck, racecheck, synccheck) over the GPU suite, and compare's runs; logs, JSON and
# markdown go to OUTDIR. Stages can be picked so each fits a time window:
#   scripts/device-check.sh OUTDIR [build] [tests] [sanitize] [compare] [families] [ladder]
#                                  [flush] [before] [profile] [sweeps | sweep_reduce sweep_gemm]
#                                  [runtwice] [allreduce] [plots]
# (allreduce, not in the defaults: needs two or more GPUs, e.g. nvidia-h200-x2; docs/allreduce.md)
# BIN_DIR: use prebuilt executables (compare, host_suite, gpu_suite) instead of building.
#
# On a lent GPU machine with a short budget: first `tests` alone with KL_GPU_SUITE_QUICK=2 (tens
# of seconds; it reaches every kernel's paths), fix what fails, then the rest. Binaries built
# elsewhere travel small as shared libraries (cmake -DKL_SHARED_LIBS=ON; run with
# LD_LIBRARY_PATH=<dir> BIN_DIR=<dir> KL_COMPARE_EXE=<dir>/compare). When only a few files can
# come back, pack OUTDIR: tar czf results.tgz -C OUTDIR .
# STAGE_TIMEOUT: seconds any one stage may take (default 1500). SANITIZE_TOOLS: which
# compute-sanitizer tools (default: memcheck racecheck synccheck).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: device-check.sh OUTDIR [stages...]}"
shift
stages="${*:-build tests sanitize compare families ladder flush profile sweeps plots}"
mkdir -p "$out"
build="${BUILD_DIR:-build}"
bin="${BIN_DIR:-$build}"
status=0
run() {  # run NAME CMD...: tee the output to OUTDIR/NAME.log, remember failures
  local name=$1; shift
  echo "=== $name: $*"
  local t0=$SECONDS
  # SIGINT first: compare then writes the rows it measured, marked incomplete
  timeout -s INT -k 30 "${STAGE_TIMEOUT:-1500}" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.log"
  echo "=== $name: exit $rc in $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || status=1
}
has() { [[ " $stages " == *" $1 "* ]]; }
# COMPARE_EXTRA: options added to every compare run (e.g. "--max-time 0.1" for a quick first look)
cmp=("$bin/compare" -q --out "$out" ${COMPARE_EXTRA:-})  # every compare run of this script

if has build && [ -z "${BIN_DIR:-}" ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  run build bash -c "cmake -S . -B '$build' -DCMAKE_BUILD_TYPE=Release -DKL_WERROR=ON ${KL_CMAKE_ARGS:-} >/dev/null && cmake --build '$build' -j \$(nproc)"
fi
if has tests; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/nvidia-smi.csv" 2>&1
  KL_COMPARE_EXE="$bin/compare" run host_suite "$bin/host_suite"
  KL_COMPARE_EXE="$bin/compare" run gpu_suite "$bin/gpu_suite" --duration=true
fi
if has sanitize; then
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 run "sanitize_$tool" compute-sanitizer --tool "$tool" \
      --error-exitcode 9 ${SANITIZE_EXTRA:-} "$bin/gpu_suite" ${SANITIZE_FILTER:-}
  done
fi
if has compare; then  # the default comparison
  run compare_default "${cmp[@]}" --name default
fi
if has families; then  # each family's measurements beyond the default run (docs/*.md quote these)
  run matvec_003 "${cmp[@]}" -f gemv,gevm --sizes 003 --name matvec_003
  run matvec_large "${cmp[@]}" -f gemv,gevm -t float -s 16384,32768x8192,8192x32768,1x100003,100003x1 --name matvec_large
  run dot_types "${cmp[@]}" -f dot -t int,float,double -s 1000,1024,1025,2^28 --name dot_types
  run rows_all_ops "${cmp[@]}" -f rows -t float -s 1000,2500x2000,2500x2001,16384,100003x7 \
    --axis op=row_sum,row_mean,col_mean,row_max,row_sumsq,row_min --axis layout=packed,pitched --name rows_all_ops
  run transpose_16384 "${cmp[@]}" -f transpose -t float,double -s 16384 --name transpose_16384
  run table_steps "${cmp[@]}" -f table -s 2^28 --axis step=1e-5,1e-3,1,100 --name table_steps
fi
if has ladder; then  # the SGEMM/DGEMM ladder at the sizes docs/sgemm-ladder.md reports
  run sgemm_ladder "${cmp[@]}" -f gemm -t float -s 2048,4096,8192 -v 'gemm_smem5*,gemm[6-9]*,gemm10_swizzled*,gemm12*,gemm_auto' --name sgemm_ladder
  run dgemm_ladder "${cmp[@]}" -f gemm -t double -s 2048,4096,8192 -v 'gemm_smem5*,gemm[6-9]*,gemm10*,gemm11*,gemm_auto' --name dgemm_ladder
  # the shapes the last steps were built for: thin (K = 17), small, and 1000³, every new step
  run gemm_thin "${cmp[@]}" -f gemm -t float,double -s 4097x4095x17,513x257x129,1000,4096x1x4096 \
    -v 'gemm_smem5*,gemm9*,gemm10*,gemm11*,gemm12*,gemm_auto' --name gemm_thin
  run aat_ladder "${cmp[@]}" -f aat -s 2048,1000 --name aat_ladder
fi
if has flush; then  # the L2 flush: a memset (dirty lines) against a read, same kernels, same sizes
  for mode in write read; do
    run "flush_$mode" "${cmp[@]}" -f reduce -t float -s 2^20,2^24,2^26,2^28 --l2-flush "$mode" --name "flush_$mode"
  done
fi
if has before; then  # the families that existed before the family core, run the old way (memset flush)
  run before_after "${cmp[@]}" -f reduce,gemm,aat --l2-flush write --name core_memset_flush
fi
if has profile; then
  BIN_DIR="$bin" run profile_sgemm bash scripts/profile-sgemm.sh "$out" 4096
  BIN_DIR="$bin" run profile_dgemm bash scripts/profile-sgemm.sh "$out" 4096 '' double
  run profile_matvec python3 scripts/profile.py --compare "$bin/compare" --out "$out" --name ncu_matvec \
    -- -f gemv,gevm -t float -s 2500x2000,16384
fi
if has sweeps || has sweep_reduce; then
  run sweep_reduce "${cmp[@]}" -f reduce -t float --default-sweep --name reduce_sweep
fi
if has sweeps || has sweep_gemm; then  # also the tile sweep of the gemm configurations
  run sweep_gemm "${cmp[@]}" -f gemm -t float,double --default-sweep --max-time 1 --name gemm_sweep
fi
if has runtwice; then  # two runs at one commit: compare diff must flag nothing; a slowed variant: only it
  run twice_a "${cmp[@]}" -f reduce,gemv,transpose --name twice_a
  run twice_b "${cmp[@]}" -f reduce,gemv,transpose --name twice_b
  run twice_diff "$bin/compare" diff "$out/twice_a.json" "$out/twice_b.json" --markdown "$out/twice_diff.md"
  run twice_slowed "${cmp[@]}" -f reduce,gemv,transpose --inject-delay reduce7_vectorized_shuffle=20 --name twice_slowed
  "$bin/compare" diff "$out/twice_a.json" "$out/twice_slowed.json" --markdown "$out/twice_slowed_diff.md" \
    > "$out/twice_slowed_diff.log" 2>&1
  echo "=== twice_slowed_diff: exit $? (1 expected: exactly reduce7_vectorized_shuffle flagged)"
fi
if has allreduce; then  # two or more GPUs: the suite's allreduce cases, memcheck over them, the ladder vs NCCL
  KL_COMPARE_EXE="$bin/compare" run allreduce_suite "$bin/gpu_suite" --duration=true -tc='*allreduce*'
  KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 run allreduce_memcheck compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$bin/gpu_suite" -tc='*allreduce*'
  run allreduce_default "${cmp[@]}" -f allreduce --name allreduce_default
  run allreduce_sweep "${cmp[@]}" -f allreduce -t float --default-sweep --name allreduce_sweep
  run allreduce_odd "${cmp[@]}" -f allreduce -t int,float,double -s 1,3,1000003 --name allreduce_odd
fi
if has plots; then
  run plots python3 scripts/plot_compare.py "$out"/*.json -o "$out/plots"
fi
exit $status
