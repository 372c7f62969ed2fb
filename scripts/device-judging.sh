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
# Everything lands in OUTDIR: runs/{A,B5,B2}/runN.json (+ .log), pairs/*/ (merged reports,
# diff.txt/.json/.md), summary.md and summary.json, judging.log.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
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

python3 - "$out" "$variant" "$cdiff" "${PAIRS:-10}" "${SEED:-38}" <<'EOF' | tee -a "$log"
import glob, json, os, random, shlex, statistics, subprocess, sys
out, variant, cdiff, npairs, seed = sys.argv[1], sys.argv[2], shlex.split(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
pool = {k: sorted(glob.glob(os.path.join(out, "runs", k, "run*.json"))) for k in ("A", "B5", "B2")}

def merged(files, path):
    if len(files) == 1:
        return files[0]
    subprocess.run(cdiff + ["--merge-passes", path] + files, check=True, stdout=subprocess.DEVNULL)
    return path

def pair(name, old, new):
    d = os.path.join(out, "pairs", name)
    os.makedirs(d, exist_ok=True)
    o, n = merged(old, os.path.join(d, "old.json")), merged(new, os.path.join(d, "new.json"))
    with open(os.path.join(d, "diff.txt"), "w") as f:
        subprocess.run(cdiff + [o, n, "--only-changed", "--json", os.path.join(d, "diff.json"),
                                "--markdown", os.path.join(d, "diff.md")], stdout=f, stderr=subprocess.STDOUT)
    with open(os.path.join(d, "runs.txt"), "w") as f:
        f.write("old: " + " ".join(os.path.relpath(x, out) for x in old) + "\nnew: " +
                " ".join(os.path.relpath(x, out) for x in new) + "\n")
    return json.load(open(os.path.join(d, "diff.json")))

groups = []  # (key, title, pairs' diffs)
A = pool["A"]
for k in (5, 3):
    if len(A) >= 2 * k:
        groups.append((f"aa-{k}", f"A/A, {k} vs {k} runs (passes)",
                       [pair(f"aa-{k}-{i}", *(lambda s: (s[:k], s[k:]))(rng.sample(A, 2 * k))) for i in range(npairs)]))
    for b in ("B5", "B2"):
        if len(A) >= k and len(pool[b]) >= k:
            groups.append((f"a{b.lower()}-{k}", f"A/B {b[1]}%, {k} vs {k} runs (passes)",
                           [pair(f"a{b.lower()}-{k}-{i}", rng.sample(A, k), rng.sample(pool[b], k)) for i in range(npairs)]))
if len(A) >= 2:
    groups.append(("aa-1", "A/A, 1 vs 1 run (run floor)", [pair(f"aa-1-{i}", *(lambda s: ([s[0]], [s[1]]))(rng.sample(A, 2))) for i in range(npairs)]))
for b in ("B5", "B2"):
    if A and pool[b]:
        groups.append((f"a{b.lower()}-1", f"A/B {b[1]}%, 1 vs 1 run (run floor)",
                       [pair(f"a{b.lower()}-1-{i}", [rng.choice(A)], [rng.choice(pool[b])]) for i in range(npairs)]))

summary = {"variant": variant, "runs": {k: len(v) for k, v in pool.items()}, "seed": seed, "groups": {}}
lines = ["# compare diff: false alarms and power (scripts/device-judging.sh)", "",
         f"Pool: {len(A)} runs of A, {len(pool['B5'])} of B5, {len(pool['B2'])} of B2 (pairs drawn from it at random, "
         f"seed {seed}: they share runs). Slowed variant: `{variant}`.", "",
         "| pairs | n | exit 0 | exit 1 | exit 2 | target flagged | target alone flagged | pairs with another row flagged | other rows flagged (total) | slowdown reached (median new/old) |",
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
for key, title, diffs in groups:
    exits = {0: 0, 1: 0, 2: 0}
    target = alone = others = with_others = 0
    ratios = []
    for d in diffs:
        exits[d["exit_status"]] = exits.get(d["exit_status"], 0) + 1
        flagged = [r for r in d["rows"] if r["verdict"] in ("SLOWER", "faster") or r["outcome"] in ("regressed", "newly_failing")]
        hit = [r for r in flagged if r["variant"] == variant and r["verdict"] == "SLOWER"]
        rest = [r for r in flagged if r["variant"] != variant]
        target += bool(hit)
        alone += bool(hit) and not rest and d["exit_status"] == 1
        others += len(rest)
        with_others += bool(rest)
        ratios += [r["ratio"] for r in d["rows"] if r["variant"] == variant and r["ratio"]]
    reached = f"{statistics.median(ratios):.4f} ({min(ratios):.4f}-{max(ratios):.4f})" if ratios else "-"
    summary["groups"][key] = {"title": title, "pairs": len(diffs), "exit": exits, "target_flagged": target,
                              "target_alone": alone, "pairs_with_other_rows": with_others,
                              "other_rows_flagged": others, "target_ratio": ratios}
    lines.append(f"| {title} | {len(diffs)} | {exits[0]} | {exits[1]} | {exits[2]} | {target} | {alone} | {with_others} | {others} | {reached} |")
lines += ["", "Done when: A/A 5 vs 5: 10 of 10 exit 0; A/B 5% 5 vs 5: 10 of 10 exit 1 with the target alone flagged.", ""]
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(lines))
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)
print("\n".join(lines))
EOF
say "device-judging.sh: done in $((SECONDS - t0)) s"
