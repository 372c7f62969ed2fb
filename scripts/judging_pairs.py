#!/usr/bin/env python3
"""Forms A/A and A/B pairs from a pool of compare runs and judges each with `compare diff`.

    scripts/judging_pairs.py OUTDIR VARIANT [--diff CMD] [--pairs 10] [--seed 38] [--every-split]

OUTDIR holds the pool scripts/device-judging.sh ran: runs/A/run*.json (plain runs of one build),
runs/B5/ and runs/B2/ (the same build with VARIANT slowed by --inject-delay); a run may be
gzipped (run*.json.gz). For K = 5 and K = 3, where the pool holds enough runs, it draws --pairs
pairs of each kind at random (--seed): A/A (two disjoint sets of K runs of A), A/B5 and A/B2 (K
runs of A against K of B), each side merged into one report of K passes from K processes
(`compare diff --merge-passes`); then one run against one (the run floor's regime). Each pair's
merged sides are diffed into OUTDIR/pairs/NAME/ (diff.txt, diff.json, diff.md, runs.txt), and the
counts go to OUTDIR/summary.md and summary.json, printed too. --every-split instead judges every
distinct split of the A runs into two halves (126 for 10 runs) and writes OUTDIR/splits.md and
splits.json: the false-alarm count over all of them (not independent trials: they share runs).

A row counts as flagged when its verdict is SLOWER or faster (library rows included, though they
never set the exit status); the target is VARIANT flagged SLOWER; "alone" means exit status 1
with no other row flagged. Needs python3 only, and a compare-diff (default: compare-diff on PATH).
"""
import argparse
import glob
import itertools
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys


def pool_of(out):
    """The runs of each kind (.json or .json.gz: compare diff reads both), in run order."""
    pool = {}
    for kind in ("A", "B5", "B2"):
        files = sorted(glob.glob(os.path.join(out, "runs", kind, "run*.json")) +
                       glob.glob(os.path.join(out, "runs", kind, "run*.json.gz")),
                       key=lambda p: int(os.path.basename(p).split(".")[0][3:]))
        pool[kind] = files
    return pool


class Judge:
    def __init__(self, out, cdiff):
        self.out, self.cdiff = out, cdiff

    def merged(self, files, path):
        if len(files) == 1:
            return files[0]
        subprocess.run(self.cdiff + ["--merge-passes", path] + files, check=True, stdout=subprocess.DEVNULL)
        return path

    def pair(self, folder, old, new, keep=True):
        """Diffs the merged OLD runs against the merged NEW runs; returns the diff's JSON."""
        d = os.path.join(self.out, folder)
        os.makedirs(d, exist_ok=True)
        o, n = self.merged(old, os.path.join(d, "old.json")), self.merged(new, os.path.join(d, "new.json"))
        outputs = ["--json", os.path.join(d, "diff.json")] + (["--markdown", os.path.join(d, "diff.md")] if keep else [])
        with open(os.path.join(d, "diff.txt"), "w") as f:
            subprocess.run(self.cdiff + [o, n, "--only-changed"] + outputs, stdout=f, stderr=subprocess.STDOUT)
        if keep:
            with open(os.path.join(d, "runs.txt"), "w") as f:
                f.write("old: " + " ".join(os.path.relpath(x, self.out) for x in old) + "\nnew: " +
                        " ".join(os.path.relpath(x, self.out) for x in new) + "\n")
        with open(os.path.join(d, "diff.json")) as f:
            result = json.load(f)
        if not keep:
            shutil.rmtree(d)
        return result


def flagged(d):
    return [r for r in d["rows"] if r["verdict"] in ("SLOWER", "faster") or r["outcome"] in ("regressed", "newly_failing")]


def tally(diffs, variant):
    exits = {0: 0, 1: 0, 2: 0}
    target = alone = others = with_others = 0
    ratios = []
    for d in diffs:
        exits[d["exit_status"]] = exits.get(d["exit_status"], 0) + 1
        f = flagged(d)
        hit = [r for r in f if r["variant"] == variant and r["verdict"] == "SLOWER"]
        rest = [r for r in f if r["variant"] != variant]
        target += bool(hit)
        alone += bool(hit) and not rest and d["exit_status"] == 1
        others += len(rest)
        with_others += bool(rest)
        ratios += [r["ratio"] for r in d["rows"] if r["variant"] == variant and r["ratio"]]
    return {"pairs": len(diffs), "exit": exits, "target_flagged": target, "target_alone": alone,
            "pairs_with_other_rows": with_others, "other_rows_flagged": others, "target_ratio": ratios,
            "other_rows": sorted({f"{r['family']} {r['dtype']} {r['shape']} {r['variant']} {r['verdict']}"
                                  + (" (library)" if r["library"] else "")
                                  for d in diffs for r in flagged(d) if r["variant"] != variant})}


def row_line(title, t):
    r = t["target_ratio"]
    reached = f"{statistics.median(r):.4f} ({min(r):.4f}-{max(r):.4f})" if r else "-"
    e = t["exit"]
    return (f"| {title} | {t['pairs']} | {e[0]} | {e[1]} | {e[2]} | {t['target_flagged']} | {t['target_alone']} | "
            f"{t['pairs_with_other_rows']} | {t['other_rows_flagged']} | {reached} |")


HEADER = ["| pairs | n | exit 0 | exit 1 | exit 2 | target flagged | target alone flagged | pairs with another row flagged | other rows flagged (total) | slowdown reached (median new/old) |",
          "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]


def random_pairs(args, judge, pool):
    rng = random.Random(args.seed)
    A = pool["A"]
    groups = []  # (key, title, diffs)
    for k in (5, 3):
        if len(A) >= 2 * k:
            diffs = []
            for i in range(args.pairs):
                s = rng.sample(A, 2 * k)
                diffs.append(judge.pair(f"pairs/aa-{k}-{i}", s[:k], s[k:]))
            groups.append((f"aa-{k}", f"A/A, {k} vs {k} runs (passes)", diffs))
        for b in ("B5", "B2"):
            if len(A) >= k and len(pool[b]) >= k:
                diffs = [judge.pair(f"pairs/a{b.lower()}-{k}-{i}", rng.sample(A, k), rng.sample(pool[b], k))
                         for i in range(args.pairs)]
                groups.append((f"a{b.lower()}-{k}", f"A/B {b[1]}%, {k} vs {k} runs (passes)", diffs))
    if len(A) >= 2:
        diffs = []
        for i in range(args.pairs):
            s = rng.sample(A, 2)
            diffs.append(judge.pair(f"pairs/aa-1-{i}", [s[0]], [s[1]]))
        groups.append(("aa-1", "A/A, 1 vs 1 run (run floor)", diffs))
    for b in ("B5", "B2"):
        if A and pool[b]:
            diffs = [judge.pair(f"pairs/a{b.lower()}-1-{i}", [rng.choice(A)], [rng.choice(pool[b])])
                     for i in range(args.pairs)]
            groups.append((f"a{b.lower()}-1", f"A/B {b[1]}%, 1 vs 1 run (run floor)", diffs))

    summary = {"variant": args.variant, "runs": {k: len(v) for k, v in pool.items()}, "seed": args.seed, "groups": {}}
    lines = ["# compare diff: false alarms and power (scripts/device-judging.sh)", "",
             f"Pool: {len(A)} runs of A, {len(pool['B5'])} of B5, {len(pool['B2'])} of B2 (pairs drawn from it at "
             f"random, seed {args.seed}: they share runs). Slowed variant: `{args.variant}`.", ""] + HEADER
    for key, title, diffs in groups:
        t = tally(diffs, args.variant)
        summary["groups"][key] = dict(title=title, **t)
        lines.append(row_line(title, t))
    others = sorted({o for g in summary["groups"].values() for o in g["other_rows"]})
    lines += ["", "Other rows flagged (any pair): " + ("; ".join(others) if others else "none"), "",
              "Done when: A/A 5 vs 5: 10 of 10 exit 0; A/B 5% 5 vs 5: 10 of 10 exit 1 with the target alone flagged.", ""]
    return summary, lines, "summary"


def every_split(args, judge, pool):
    A = pool["A"]
    k = len(A) // 2
    diffs, seen = [], set()
    for left in itertools.combinations(range(2 * k), k):
        right = tuple(i for i in range(2 * k) if i not in left)
        if right in seen:
            continue
        seen.add(left)
        diffs.append(judge.pair("splits-tmp", [A[i] for i in left], [A[i] for i in right], keep=False))
    t = tally(diffs, args.variant)
    summary = {"runs": len(A), "k": k, **t}
    lines = [f"# compare diff: every split of {2 * k} runs of A into {k} vs {k} (scripts/judging_pairs.py --every-split)", "",
             f"{len(diffs)} distinct splits of the same {2 * k} runs (not independent trials: they share runs).", ""] + HEADER
    lines.append(row_line(f"A/A, {k} vs {k} runs (passes), every split", t))
    lines += ["", "Rows flagged (any split): " + ("; ".join(t["other_rows"]) if t["other_rows"] else "none"), ""]
    return summary, lines, "splits"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("variant")
    ap.add_argument("--diff", default="compare-diff", help="the compare-diff command (may be two words: 'build/compare diff')")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--every-split", action="store_true")
    args = ap.parse_args()
    pool = pool_of(args.out)
    if not pool["A"]:
        sys.exit(f"judging_pairs.py: no runs under {args.out}/runs/A")
    judge = Judge(args.out, shlex.split(args.diff))
    summary, lines, name = (every_split if args.every_split else random_pairs)(args, judge, pool)
    with open(os.path.join(args.out, name + ".md"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(args.out, name + ".json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
