#!/usr/bin/env bash
# The false-alarm rate and the power of `compare diff`, measured on one GPU (issue 38, item 5):
#   scripts/device-judging.sh BUILD_DIR OUTDIR
# BUILD_DIR: a built tree (BUILD_DIR/compare and BUILD_DIR/compare-diff). It runs a pool of
# separate `compare` processes of one build, interleaved in time (A, then a B, then A, ...):
#   A   plain runs (the same build, nothing injected)
#   B5  runs with --inject-delay VARIANT=D5 (VARIANT about 5% slower)
#   B2  runs with --inject-delay VARIANT=D2 (about 2% slower)
# then forms pairs from the pool and diffs them, 10 of each kind (PAIRS):
#   A/A, K vs K runs  two disjoint random sets of K runs of A, each merged into one report of K
#                     passes from K processes (the t test on the pass medians)
#   A/B, K vs K runs  K random runs of A against K random runs of B5 (or B2)
#   1 vs 1 run        one run of A against another (or a B5): the run floor's regime
# for K = 5 and K = 3 where the pool holds enough runs. Pairs share runs (a pool of 10 runs of A
# makes every A/A pair), so they are not independent trials: the summary says how many runs made
# them. VARIANT (default: reduce7_vectorized_shuffle, else the slowest hand-written reduce row of
# the first run) and its delays come from the first A run's median: D = round(fraction x median
# in us). --inject-delay waits on the GPU after every launch, so the slowdown reached is measured
# and reported (the median ratio of B to A).
#
# Environment: N_A=10 N_B5=5 N_B2=5 (runs of each; 0 leaves a kind out), BUDGET_S=480 (no run
# starts that would end past this many seconds; the pairs are formed from what ran), PAIRS=10,
# SEED=38 (the pairs' random draw), COMPARE_ARGS (default: -f reduce,dot,transpose,gemv -t float
# --max-time 0.3 --no-recheck --no-exact-check: the comparison's timing, validated once), VARIANT.
# Everything lands in OUTDIR: runs/{A,B5,B2}/runN.json.gz (+ .log), pairs/*/ (merged reports,
# diff.txt/.json/.md), summary.md and summary.json, splits.md and splits.json (every split of the A
# runs), judging.log.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=$(cd "$1" && pwd) || exit 2
out=$2
mkdir -p "$out/runs/A" "$out/runs/B5" "$out/runs/B2" "$out/pairs" || exit 2
out=$(cd "$out" && pwd)
compare=$build/compare
cdiff=$build/compare-diff
[ -x "$cdiff" ] || cdiff="$compare diff"
[ -x "$compare" ] || { echo "device-judging.sh: $compare is not an executable" >&2; exit 2; }
N_A=${N_A:-10}
N_B5=${N_B5:-5}
N_B2=${N_B2:-5}
BUDGET_S=${BUDGET_S:-480}
# shellcheck disable=SC2206
args=(${COMPARE_ARGS:--f reduce,dot,transpose,gemv -t float --max-time 0.3 --no-recheck --no-exact-check})
log=$out/judging.log
say() { echo "$*" | tee -a "$log"; }
: > "$log"
say "device-judging.sh: build $build; compare ${args[*]}; N_A=$N_A N_B5=$N_B5 N_B2=$N_B2 BUDGET_S=$BUDGET_S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> "$log" 2>&1 || true
t0=$SECONDS
last=0

# one KIND I [extra args]: one run; false when it wrote no report.
one() {
  local kind=$1 i=$2 t=$SECONDS rc
  shift 2
  "$compare" "${args[@]}" "$@" -q --out "$out/runs/$kind" --name "run$i" > "$out/runs/$kind/run$i.log" 2>&1
  rc=$?
  last=$((SECONDS - t))
  say "$kind run $i: exit $rc in $last s (elapsed $((SECONDS - t0)) s)"
  [ -f "$out/runs/$kind/run$i.json" ]
}

# The variant slowed, and its delays, from the first A run.
one A 1 || { say "the first run wrote no report: stopping"; exit 1; }
read -r variant d5 d2 < <(python3 - "$out/runs/A/run1.json" "${VARIANT:-}" <<'EOF'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "ok" and "timing_ms" in r]
want = sys.argv[2] or "reduce7_vectorized_shuffle"
pick = [r for r in rows if r["variant"] == want]
if not pick:  # the slowest hand-written reduce row: long enough for a delay of a few percent
    pick = sorted((r for r in rows if r["family"] == "reduce" and r.get("source") != "library"),
                  key=lambda r: -r["timing_ms"]["median"])
r = pick[0]
us = r["timing_ms"]["median"] * 1e3
print(r["variant"], max(1, round(0.05 * us)), max(1, round(0.02 * us)))
EOF
)
say "slowed variant: $variant; --inject-delay $variant=$d5 (5%), $variant=$d2 (2%)"

# The pool, interleaved: A and a B in turn (B5, B2 alternating), until every kind has its runs or
# the budget is spent.
na=1 n5=0 n2=0 turn=0
while [ $na -lt "$N_A" ] || [ $n5 -lt "$N_B5" ] || [ $n2 -lt "$N_B2" ]; do
  [ $((SECONDS - t0 + last)) -le "$BUDGET_S" ] || break
  turn=$((turn + 1))
  if [ $((turn % 2)) = 0 ] && [ $na -lt "$N_A" ]; then one A $((na + 1)) && na=$((na + 1)); continue; fi
  if { [ $((turn % 4)) = 1 ] || [ $n2 -ge "$N_B2" ]; } && [ $n5 -lt "$N_B5" ]; then
    one B5 $((n5 + 1)) --inject-delay "$variant=$d5" && n5=$((n5 + 1))
  elif [ $n2 -lt "$N_B2" ]; then
    one B2 $((n2 + 1)) --inject-delay "$variant=$d2" && n2=$((n2 + 1))
  else
    one A $((na + 1)) && na=$((na + 1))
  fi
done
say "pool: $na runs of A, $n5 of B5, $n2 of B2 in $((SECONDS - t0)) s"

python3 "$(dirname "$0")/judging_pairs.py" "$out" "$variant" --diff "$cdiff" --pairs "${PAIRS:-10}" --seed "${SEED:-38}" | tee -a "$log"
# Every split of the A runs into two halves (splits.md, splits.json): the false alarms over all of them.
python3 "$(dirname "$0")/judging_pairs.py" "$out" "$variant" --diff "$cdiff" --every-split | tee -a "$log"
gzip -9 -n -f "$out"/runs/*/run*.json  # the runs as results/ keeps them (compare diff reads .json.gz)
say "device-judging.sh: done in $((SECONDS - t0)) s"
