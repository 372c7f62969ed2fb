#!/usr/bin/env bash
# One lent-GPU call that checks a build end to end and measures the default comparison:
#   scripts/device-verdict.sh OUTDIR TAG [CMAKE_ARGS...]
# builds into /tmp/kl-TAG with CMAKE_ARGS (e.g. -DCMAKE_CUDA_ARCHITECTURES=80), runs the host
# suite and the GPU suite (SUITE=0 skips it; KL_GPU_SUITE_QUICK as set), the default comparison
# (timed: its wall time is in TAG.log), and `compare diff` against BEFORE (a report; old
# configuration names mapped through results/config-renames.json). SRC: build that source tree
# instead of this one (an older commit's, to measure before and after on one machine). At most
# five files land in
# OUTDIR: TAG.log (everything printed), TAG.json/.md (the default run), TAG-diff.md, TAG-build.log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "${SRC:-$here/..}"
. "$here/device-common.sh"
device_begin device-verdict.sh "$@"
shift 2
device_build "$@"
"$build/tests/host_suite" 2>&1 | tail -3 | tee -a "$log"
[ "${SUITE:-1}" = 0 ] || device_suite
t2=$SECONDS
"$build/compare" -q --out "$out" --name "$tag" ${COMPARE_EXTRA:-} > "$out/$tag-default.tmp" 2>&1
rc=$?
grep -cE " (ok|skipped) " "$out/$tag-default.tmp" | sed 's/^/rows ok or skipped: /' | tee -a "$log"
grep -E " (FAIL|ERROR) " "$out/$tag-default.tmp" | head -30 | tee -a "$log"
grep -E "skipped" "$out/$tag-default.tmp" | sed -E 's/ +/ /g' | cut -c1-220 | sort | uniq | head -40 >> "$log"
grep -E "^phase" "$out/$tag-default.tmp" | tee -a "$log"  # KL_PHASE_TIMES=1
say "$tag: default comparison exit $rc in $((SECONDS - t2)) s"
rm -f "$out/$tag-default.tmp" "$out/$tag.csv"
if [ -n "${BEFORE:-}" ]; then
  python3 "$here/rename_variants.py" "$BEFORE" /tmp/before-renamed.json
  "$build/compare" diff /tmp/before-renamed.json "$out/$tag.json" --markdown "$out/$tag-diff.md" > /tmp/diff.out 2>&1
  drc=$?
  tail -40 /tmp/diff.out | tee -a "$log"
  say "$tag: compare diff exit $drc"
fi
say "$tag: done in $((SECONDS - t0)) s"
