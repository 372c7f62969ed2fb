#!/usr/bin/env bash
# One lent-GPU call for the shape classes (docs/sgemm-ladder.md, "Every shape class"):
#   scripts/device-shapes.sh OUTDIR TAG [CMAKE_ARGS...]
# builds into /tmp/kl-TAG, then (each step optional through the environment):
#   SUITE=1      the GPU suite (KL_GPU_SUITE_QUICK as set; SUITE_TC: a doctest -tc filter)
#   SHAPES=1     compare -f $FAMILIES --sizes shapes -v $VARIANTS into OUTDIR/TAG.{json,md}
#                (FAMILIES default gemm,aat,table,gevm; VARIANTS default: the ladder's last steps,
#                the auto rule, the triangles, the tables and the last gevm steps, so the 8192³
#                products do not run the documents' naive kernels for minutes; every pattern must
#                match a variant of the families run; the library rows always run)
#   COMPARES=... more compare runs, "NAME|ARGS" each, separated by ';': compare -q ARGS into
#                OUTDIR/NAME.{json,md}
#   PROFILE=...  scripts/profile-sgemm.sh OUTDIR SIZE GLOBS TYPE, PROFILE="SIZE|GLOBS|TYPE"
#                (several separated by ';'; each TYPE's files are ncu_sgemm/ncu_dgemm, so one
#                per TYPE, or NAME as a fourth field: "SIZE|GLOBS|TYPE|NAME" for OUTDIR/NAME.*)
#   SANITIZE=1   compute-sanitizer memcheck, racecheck, synccheck over each of SANITIZE_ARGS
#                (compare arguments; several runs separated by ';'), one summary line each
# Everything printed goes to OUTDIR/TAG.log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/.."
. "$here/device-common.sh"
device_begin device-shapes.sh "$@"
shift 2
device_build "$@"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader | tee -a "$log"
[ "${SUITE:-0}" = 0 ] || device_suite
if [ "${SHAPES:-1}" != 0 ]; then
  t2=$SECONDS
  fams="${FAMILIES:-gemm,aat,table,gevm}"
  vars="${VARIANTS:-gemm1[0-3]*,gemm_thin_k,gemm_auto,gemm11*,aat_tri*,table*,gevm[56]*}"
  "$build/compare" -q -f "$fams" --sizes shapes -v "$vars" --out "$out" --name "$tag" ${COMPARE_EXTRA:-} > "$build.shapes.log" 2>&1
  rc=$?
  tail -5 "$build.shapes.log" | tee -a "$log"
  say "$tag: compare --sizes shapes exit $rc in $((SECONDS - t2)) s"
  rm -f "$out/$tag.csv"
fi
if [ -n "${COMPARES:-}" ]; then
  IFS=';' read -r -a cruns <<< "$COMPARES"
  for c in "${cruns[@]}"; do
    IFS='|' read -r cname cargs <<< "$c"
    t5=$SECONDS
    set -f  # the -v patterns are compare's globs, not the shell's
    # shellcheck disable=SC2086
    "$build/compare" -q $cargs --out "$out" --name "$cname" > "$build.$cname.log" 2>&1
    rc=$?
    set +f
    tail -3 "$build.$cname.log" | tee -a "$log"
    say "$tag: compare $cname [$cargs] exit $rc in $((SECONDS - t5)) s"
    rm -f "$out/$cname.csv"
  done
fi
if [ -n "${PROFILE:-}" ]; then
  IFS=';' read -r -a pruns <<< "$PROFILE"
  for p in "${pruns[@]}"; do
    IFS='|' read -r psize pglobs ptype pname <<< "$p"
    t3=$SECONDS
    pdir="$out"
    [ -z "$pname" ] || pdir="$build.profile-$pname"
    BIN_DIR="$build" bash scripts/profile-sgemm.sh "$pdir" "$psize" "$pglobs" "$ptype" > "$build.profile.log" 2>&1
    say "$tag: profile ($p) exit $? in $((SECONDS - t3)) s"
    tail -3 "$build.profile.log" | tee -a "$log"
    if [ -n "$pname" ]; then
      for f in "$pdir"/ncu_*; do [ -e "$f" ] && mv "$f" "$out/$pname.${f##*.}"; done
    fi
  done
fi
if [ "${SANITIZE:-0}" != 0 ]; then
  IFS=';' read -r -a runs <<< "${SANITIZE_ARGS:-}"
  set -f  # the -v patterns are compare's globs
  for tool in memcheck racecheck synccheck; do
    for args in "${runs[@]}"; do
      t4=$SECONDS
      # shellcheck disable=SC2086
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/compare" -q --validate-only --no-files $args > "$build.$tool.log" 2>&1
      rc=$?
      # compare's console rows end in "pass <ratio>..." or "FAIL ..."; the legend line is not a row
      say "$tag: sanitizer $tool [$args] exit $rc in $((SECONDS - t4)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$build.$tool.log" | tail -1); rows passed $(grep -cE ' pass [0-9e.+-]+' "$build.$tool.log"), failed $(grep -E ' FAIL ' "$build.$tool.log" | grep -vc 'int ok/FAIL')"
      [ "$rc" = 0 ] || tail -5 "$build.$tool.log" | tee -a "$log"
    done
  done
fi
say "$tag: done in $((SECONDS - t0)) s"
