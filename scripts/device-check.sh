#!/usr/bin/env bash
# What produced results/: on a GPU machine, build, run both suites, compute-sanitizer
# (memcheck, racecheck, synccheck) over the GPU suite, and compare's runs; logs, JSON and
# markdown go to OUTDIR. Stages can be picked so each fits a time window:
#   scripts/device-check.sh OUTDIR [build] [tests] [sanitize] [compare] [ladder] [profile]
#                                  [sweeps | sweep_reduce sweep_gemm]
# BIN_DIR: use prebuilt executables (compare, host_suite, gpu_suite) instead of building.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: device-check.sh OUTDIR [stages...]}"
shift
stages="${*:-build tests sanitize compare ladder profile sweeps}"
mkdir -p "$out"
build="${BUILD_DIR:-/tmp/kl-build}"
bin="${BIN_DIR:-$build}"
[ -n "${BIN_DIR:-}" ] || bin="$build"
status=0
run() {  # run NAME CMD...: tee the output to OUTDIR/NAME.log, remember failures
  local name=$1; shift
  echo "=== $name: $*"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$out/$name.log" | tail -n 40
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc in $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || status=1
}
has() { [[ " $stages " == *" $1 "* ]]; }

if has build && [ -z "${BIN_DIR:-}" ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  run build bash -c "cmake -S . -B '$build' -DCMAKE_BUILD_TYPE=Release -DKL_WERROR=ON ${KL_CMAKE_ARGS:-} >/dev/null && cmake --build '$build' -j \$(nproc)"
fi
if has tests; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/nvidia-smi.csv" 2>&1
  KL_COMPARE_EXE="$bin/compare" run host_suite "$bin/host_suite"
  run gpu_suite "$bin/gpu_suite" --duration=true
fi
if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    KL_GPU_SUITE_QUICK=2 run "sanitize_$tool" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      ${SANITIZE_EXTRA:-} "$bin/gpu_suite" ${SANITIZE_FILTER:-}
  done
fi
if has compare; then
  run compare_default "$bin/compare" --out "$out" --name default
fi
if has ladder; then  # the SGEMM ladder at the sizes docs/sgemm-ladder.md reports
  run sgemm_ladder "$bin/compare" -f gemm -t float -s 2048,4096,8192 \
    -v 'gemm_smem5*,gemm[6-9]*,gemm10_swizzled*,gemm_auto' --out "$out" --name sgemm_ladder
  run dgemm_ladder "$bin/compare" -f gemm -t double -s 2048,4096,8192 \
    -v 'gemm_smem5*,gemm[6-9]*,gemm10*,gemm11*,gemm_auto' --out "$out" --name dgemm_ladder
  # the shapes the last steps were built for: thin (K = 17), small, and 1000³, every new step
  run gemm_thin "$bin/compare" -f gemm -t float,double -s 4097x4095x17,513x257x129,1000,4096x1x4096 \
    -v 'gemm_smem5*,gemm9*,gemm10*,gemm11*,gemm_auto' --out "$out" --name gemm_thin
fi
if has profile; then
  BIN_DIR="$bin" run profile_sgemm bash scripts/profile-sgemm.sh "$out" 4096
  BIN_DIR="$bin" run profile_dgemm bash scripts/profile-sgemm.sh "$out" 4096 '' double
fi
if has sweeps || has sweep_reduce; then
  run sweep_reduce "$bin/compare" -f reduce -t float --default-sweep --out "$out" --name reduce_sweep
fi
if has sweeps || has sweep_gemm; then  # also the tile sweep of gemm9's configurations
  run sweep_gemm "$bin/compare" -f gemm -t float,double --default-sweep --max-time 1 --out "$out" --name gemm_sweep
fi
exit $status
