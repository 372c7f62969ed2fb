#!/usr/bin/env bash
# A/B in one command on one machine: runs two builds' `compare` alternately over the same
# problems, R separate runs a side, merges each side's runs into one report of R passes from R
# processes, and judges them with `compare diff` on the per-pass medians
# (docs/judging-progress.md: the run as the unit).
#
#   scripts/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [compare args...]
#   e.g. scripts/ab.sh /tmp/build-main build -f reduce,dot -t float --max-time 0.3
#
# Environment:
#   R=5           runs a side (3 at least: fewer cannot be tested on their passes)
#   OUT=ab-out    where the runs, the merged reports and the diff go
#   OLD_EXTRA=, NEW_EXTRA=   extra compare arguments for one side only (e.g. NEW_EXTRA="--inject-delay v=20")
#   DIFF=         the compare-diff to merge and judge with (default: NEW_BUILD_DIR/compare-diff, else
#                 NEW_BUILD_DIR/compare diff); the old build's may predate --merge-passes
#   DIFF_ARGS=    extra `compare diff` options (--only-changed, --threshold 1%, ...)
# The runs alternate ABBA (old, new, new, old, ...), so a drift of the machine (temperature,
# clocks) falls on both sides alike. Writes OUT/old/run*.json, OUT/new/run*.json, OUT/old.json,
# OUT/new.json (merged), OUT/diff.txt, .md, .json, .junit.xml. Exit status: the diff's (0 no
# regression, 1 a regression, 2 bad or incomplete input), or 2 when a run wrote no report.
set -uo pipefail

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
old_build=$1
new_build=$2
shift 2
R=${R:-5}
OUT=${OUT:-ab-out}
for b in "$old_build" "$new_build"; do
  [ -x "$b/compare" ] || { echo "ab.sh: $b/compare is not an executable (build the tree first)" >&2; exit 2; }
done
[ "$R" -ge 3 ] 2>/dev/null || { echo "ab.sh: R=$R: give 3 or more runs a side" >&2; exit 2; }
if [ -n "${DIFF:-}" ]; then
  # shellcheck disable=SC2206  # DIFF may be two words ("build/compare diff")
  diff_cmd=($DIFF)
elif [ -x "$new_build/compare-diff" ]; then
  diff_cmd=("$new_build/compare-diff")
else
  diff_cmd=("$new_build/compare" diff)
fi
mkdir -p "$OUT/old" "$OUT/new" || exit 2
rm -f "$OUT"/old/run*.json "$OUT"/new/run*.json

# run SIDE I: one run of SIDE's build; its report is OUT/SIDE/runI.json.
run() {
  local side=$1 i=$2 build extra t0=$SECONDS rc
  shift 2
  if [ "$side" = old ]; then build=$old_build extra=${OLD_EXTRA:-}; else build=$new_build extra=${NEW_EXTRA:-}; fi
  # shellcheck disable=SC2086  # the extras are words
  "$build/compare" "$@" $extra -q --out "$OUT/$side" --name "run$i" > "$OUT/$side/run$i.log" 2>&1
  rc=$?
  echo "ab.sh: $side run $i of $R: exit $rc in $((SECONDS - t0)) s"
  # Exit 1 (a variant failed validation) still wrote a report the diff judges; anything else
  # without a report is the end of the comparison.
  [ -f "$OUT/$side/run$i.json" ] || { echo "ab.sh: $side run $i wrote no report (exit $rc; see $OUT/$side/run$i.log)" >&2; exit 2; }
}

for i in $(seq 1 "$R"); do
  if [ $((i % 2)) = 1 ]; then run old "$i" "$@"; run new "$i" "$@"; else run new "$i" "$@"; run old "$i" "$@"; fi
done

for side in old new; do
  "${diff_cmd[@]}" --merge-passes "$OUT/$side.json" "$OUT"/$side/run*.json || exit 2
done
# shellcheck disable=SC2086
"${diff_cmd[@]}" "$OUT/old.json" "$OUT/new.json" --markdown "$OUT/diff.md" --json "$OUT/diff.json" \
  --junit "$OUT/diff.junit.xml" ${DIFF_ARGS:-} > "$OUT/diff.txt"
rc=$?
cat "$OUT/diff.txt"
exit $rc
