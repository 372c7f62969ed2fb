#!/usr/bin/env bash
# The false-alarm rate and the power of `compare diff`, measured on one GPU (issue 38, item 5):
#   scripts/device-judging.sh BUILD_DIR OUTDIR
# BUILD_DIR: a built tree (BUILD_DIR/compare and BUILD_DIR/compare-diff). It runs a pool of
# separate `compare` processes of one build, interleaved in time:
#   A   plain runs (the same build, nothing injected)
#   B5  runs with --inject-delay VARIANT=D5 (VARIANT about 5% slower)
#   B2  runs with --inject-delay VARIANT=D2 (about 2% slower)
# in the order A B5 A B2 A B5 A B2 ..., then forms the pairs from the pool and diffs them:
#   A/A  on passes: 10 pairs, 3 runs vs 3 runs of A (merged, Welch's t on the pass medians)
#   A/B5, A/B2 on passes: 10 pairs each, 3 runs of A vs 3 runs of B
#   A/A, A/B5 in one pass: 10 pairs each, one run vs one run (the run floor's regime)
# Pairs share runs (a pool of N_A runs of A makes every pair), so the pairs are not independent:
# the summary says how many runs made them. VARIANT (default: reduce7_vectorized_shuffle, else
# the slowest hand-written reduce row of the first run) and its delays are taken from the first
# A run's median: D = round(fraction x median in us). --inject-delay waits after every launch,
# so the slowdown reached is measured and reported (the median ratio of B to A).
#
# Environment: N_A=12 N_B=6 (runs of A, and of each B), BUDGET_S=420 (no new run starts past
# this many seconds; the pairs are then formed from what ran, fewer if need be),
# COMPARE_ARGS (default: -f reduce,dot,transpose,gemv -t float --max-time 0.3 --no-recheck),
# VARIANT. Everything lands in OUTDIR: runs/{A,B5,B2}/runN.json (+ .log), pairs/*/ (merged
# reports, diff.txt/.json/.md), summary.md and summary.json, judging.log.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=$(cd "$1" && pwd) || exit 2
out=$2
mkdir -p "$out/runs/A" "$out/runs/B5" "$out/runs/B2" "$out/pairs" || exit 2
out=$(cd "$out" && pwd)
compare=$build/compare
cdiff=$build/compare-diff
[ -x "$cdiff" ] || cdiff="$compare diff"
[ -x "$compare" ] || { echo "device-judging.sh: $compare is not an executable" >&2; exit 2; }
N_A=${N_A:-12}
N_B=${N_B:-6}
BUDGET_S=${BUDGET_S:-420}
# shellcheck disable=SC2206
args=(${COMPARE_ARGS:--f reduce,dot,transpose,gemv -t float --max-time 0.3 --no-recheck})
log=$out/judging.log
say() { echo "$*" | tee -a "$log"; }
: > "$log"
say "device-judging.sh: build $build; compare ${args[*]}; N_A=$N_A N_B=$N_B BUDGET_S=$BUDGET_S"
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

# The pool, interleaved: A B5 A B2 ..., until every kind has its runs or the budget is spent.
na=1 n5=0 n2=0
while [ $na -lt "$N_A" ] || [ $n5 -lt "$N_B" ] || [ $n2 -lt "$N_B" ]; do
  for kind in B5 A B2 A; do
    [ $((SECONDS - t0 + last)) -le "$BUDGET_S" ] || break 2
    case $kind in
      A) [ $na -lt "$N_A" ] || continue; one A $((na + 1)) && na=$((na + 1)) ;;
      B5) [ $n5 -lt "$N_B" ] || continue; one B5 $((n5 + 1)) --inject-delay "$variant=$d5" && n5=$((n5 + 1)) ;;
      B2) [ $n2 -lt "$N_B" ] || continue; one B2 $((n2 + 1)) --inject-delay "$variant=$d2" && n2=$((n2 + 1)) ;;
    esac
  done
done
say "pool: $na runs of A, $n5 of B5, $n2 of B2 in $((SECONDS - t0)) s"

# pair NAME OLD_FILES NEW_FILES: merges each side (when several runs) and diffs them.
pair() {
  local name=$1 d=$out/pairs/$1
  mkdir -p "$d"
  # shellcheck disable=SC2086
  $cdiff --merge-passes "$d/old.json" $2 > /dev/null && $cdiff --merge-passes "$d/new.json" $3 > /dev/null || return
  $cdiff "$d/old.json" "$d/new.json" --only-changed --json "$d/diff.json" --markdown "$d/diff.md" > "$d/diff.txt" 2>&1
  echo "$name exit $?" >> "$out/pairs/exits.txt"
}
run_file() { echo "$out/runs/$1/run$2.json"; }
: > "$out/pairs/exits.txt"
# Pair i's A sides interleave in time (runs i, i+2, i+4 against i+1, i+3, i+5), modulo the pool.
a3() { local i=$1 s=$2; echo "$(run_file A $(((i + s) % na + 1))) $(run_file A $(((i + s + 2) % na + 1))) $(run_file A $(((i + s + 4) % na + 1)))"; }
b3() { local k=$1 n=$2 i=$3; echo "$(run_file "$k" $((i % n + 1))) $(run_file "$k" $(((i + 1) % n + 1))) $(run_file "$k" $(((i + 2) % n + 1)))"; }
for i in $(seq 0 9); do
  [ "$na" -ge 6 ] && pair "aa-passes-$i" "$(a3 "$i" 0)" "$(a3 "$i" 1)"
  [ "$na" -ge 3 ] && [ "$n5" -ge 3 ] && pair "ab5-passes-$i" "$(a3 "$i" 0)" "$(b3 B5 "$n5" "$i")"
  [ "$na" -ge 3 ] && [ "$n2" -ge 3 ] && pair "ab2-passes-$i" "$(a3 "$i" 0)" "$(b3 B2 "$n2" "$i")"
  [ "$na" -ge 2 ] && pair "aa-single-$i" "$(run_file A $((i % na + 1)))" "$(run_file A $(((i + 1) % na + 1)))"
  [ "$na" -ge 1 ] && [ "$n5" -ge 1 ] && pair "ab5-single-$i" "$(run_file A $((i % na + 1)))" "$(run_file B5 $((i % n5 + 1)))"
done

python3 - "$out" "$variant" "$na" "$n5" "$n2" <<'EOF' | tee -a "$log"
import json, os, sys, glob, statistics
out, variant, na, n5, n2 = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
def load(p):
    with open(p) as f:
        return json.load(f)
groups = {"aa-passes": "A/A, 3 vs 3 runs (passes)", "ab5-passes": "A/B 5%, 3 vs 3 runs (passes)",
          "ab2-passes": "A/B 2%, 3 vs 3 runs (passes)", "aa-single": "A/A, 1 vs 1 run (run floor)",
          "ab5-single": "A/B 5%, 1 vs 1 run (run floor)"}
summary = {"variant": variant, "runs": {"A": na, "B5": n5, "B2": n2}, "groups": {}}
lines = ["# compare diff: false alarms and power (scripts/device-judging.sh)", "",
         f"Pool: {na} runs of A, {n5} of B5, {n2} of B2 (pairs share runs). Slowed variant: `{variant}`.", "",
         "| pairs | n | exit 0 | exit 1 | exit 2 | target flagged | target alone flagged | other rows flagged (total) | slowdown reached (median new/old) |",
         "|---|--:|--:|--:|--:|--:|--:|--:|---|"]
for g, title in groups.items():
    ds = sorted(glob.glob(os.path.join(out, "pairs", g + "-*", "diff.json")))
    exits = {0: 0, 1: 0, 2: 0}
    target = alone = others = 0
    ratios = []
    for p in ds:
        d = load(p)
        exits[d["exit_status"]] = exits.get(d["exit_status"], 0) + 1
        flagged = [r for r in d["rows"] if r["verdict"] in ("SLOWER", "faster") or r["outcome"] in ("regressed", "newly_failing")]
        hit = [r for r in flagged if r["variant"] == variant and r["verdict"] == "SLOWER"]
        rest = [r for r in flagged if r["variant"] != variant]
        target += bool(hit)
        alone += bool(hit) and not rest and d["exit_status"] == 1
        others += len(rest)
        ratios += [r["ratio"] for r in d["rows"] if r["variant"] == variant and r["ratio"]]
    reached = f"{statistics.median(ratios):.4f} ({min(ratios):.4f}-{max(ratios):.4f})" if ratios else "-"
    summary["groups"][g] = {"title": title, "pairs": len(ds), "exit": exits, "target_flagged": target,
                            "target_alone": alone, "other_rows_flagged": others, "target_ratio": ratios}
    lines.append(f"| {title} | {len(ds)} | {exits[0]} | {exits[1]} | {exits[2]} | {target} | {alone} | {others} | {reached} |")
lines += ["", "Done when: A/A on passes 10 of 10 exit 0; A/B 5% on passes 10 of 10 target alone flagged (exit 1).", ""]
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(lines))
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)
print("\n".join(lines))
EOF
say "device-judging.sh: done in $((SECONDS - t0)) s"
