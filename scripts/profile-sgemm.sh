#!/usr/bin/env bash
# What docs/sgemm-ladder.md's profiler columns come from: scripts/profile.py --compute over the
# gemm ladder and cuBLAS at one size (Nsight Compute, one validation launch of each variant
# alone, clocks left as they are): the memory columns every profile has, plus registers, issue
# rate, the FMA / FP64 / DMMA pipes and FFMA (DFMA) per instruction.
#   scripts/profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS] [TYPE]
# TYPE float (default): SMEM-5, gemm6 … gemm10's configurations, into OUTDIR/ncu_sgemm.{md,json};
# TYPE double: gemm9, gemm10 and gemm11 (the FP64 tensor cores), into OUTDIR/ncu_dgemm.{md,json}.
# BIN_DIR: where compare is (default: the build folder, ${BUILD_DIR:-build}, built first with
# scripts/configure.sh as run.sh does, if compare is not there yet).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: profile-sgemm.sh OUTDIR [SIZE] [VARIANT_GLOBS] [TYPE]}"
size="${2:-4096}"
type="${4:-float}"
case "$type" in
  float) name=ncu_sgemm; default_globs='gemm_smem5*,gemm[6-9]*,gemm10_swizzled*,gemm12*' ;;
  double) name=ncu_dgemm; default_globs='gemm9*,gemm10_swizzled*,gemm11_dmma*' ;;
  *) echo "profile-sgemm.sh: TYPE must be float or double, not '$type'" >&2; exit 2 ;;
esac
globs="${3:-$default_globs}"
bin="${BIN_DIR:-${BUILD_DIR:-build}}"
if [ ! -x "$bin/compare" ]; then
  [ -z "${BIN_DIR:-}" ] || { echo "profile-sgemm.sh: error: no compare in BIN_DIR=$bin" >&2; exit 2; }
  bash scripts/configure.sh >&2
fi
# The library baselines are always in compare's rows, so cuBLAS is profiled beside the ladder.
exec python3 scripts/profile.py --compute --compare "$bin/compare" --out "$out" --name "$name" \
  -- -f gemm -t "$type" -s "$size" -v "$globs"
