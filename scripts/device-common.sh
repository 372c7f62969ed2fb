# What the lent-GPU scripts (device-grading.sh, device-judging.sh) share, sourced by them after
# `cd` into the tree to build:
#   device_begin SCRIPT OUTDIR TAG   sets out, tag, log (OUTDIR/TAG.log), build (/tmp/kl-TAG), t0
#   say TEXT                         "== TEXT" on stdout and into the log
#   device_build CMAKE_ARGS...       configure and build (Release, warnings as errors; BUILD_TARGET:
#                                    one target only, e.g. compare); on failure
#                                    the errors go to the log, the whole output stays in
#                                    OUTDIR/TAG-build.log, and the script exits 1; with BIN_DIR
#                                    set (a build folder made elsewhere for this GPU: compare,
#                                    tests/gpu_suite) nothing is built and BIN_DIR is used
#   device_suite                     the GPU suite (KL_GPU_SUITE_QUICK as set; SUITE_TC: a doctest
#                                    -tc filter), its summary lines into the log
export PATH="$PATH:/usr/local/cuda/bin"

device_begin() {
  out="${2:?usage: $1 OUTDIR TAG [CMAKE_ARGS...]}"
  tag="${3:?usage: $1 OUTDIR TAG [CMAKE_ARGS...]}"
  mkdir -p "$out"
  log="$out/$tag.log"
  build="/tmp/kl-$tag"
  t0=$SECONDS
}

say() { echo "== $*" | tee -a "$log"; }

device_build() {
  if [ -n "${BIN_DIR:-}" ]; then
    build="$BIN_DIR"
    say "$tag: prebuilt binaries in $build (nothing built here)"
    return
  fi
  say "$tag: configure and build ($*)"
  if ! BUILD_DIR="$build" KL_SKIP_DEPS=1 bash scripts/configure.sh "$@" > "$out/$tag-build.log" 2>&1; then
    grep -E "error|Error" "$out/$tag-build.log" | head -20 | tee -a "$log"
    say "$tag: build FAILED in $((SECONDS - t0)) s"
    exit 1
  fi
  say "$tag: built in $((SECONDS - t0)) s"
  rm -f "$out/$tag-build.log"  # kept only when the build fails
}

device_suite() {
  local t1=$SECONDS rc
  KL_COMPARE_EXE="$build/compare" timeout 900 "$build/tests/gpu_suite" ${SUITE_TC:+-tc="$SUITE_TC"} > "$out/$tag-suite.tmp" 2>&1
  rc=$?
  grep -E "ERROR|logged|FAIL|note|test cases|assertions|Status" "$out/$tag-suite.tmp" | head -80 | tee -a "$log"
  say "$tag: gpu_suite exit $rc in $((SECONDS - t1)) s (KL_GPU_SUITE_QUICK=${KL_GPU_SUITE_QUICK:-0})"
  rm -f "$out/$tag-suite.tmp"
}
