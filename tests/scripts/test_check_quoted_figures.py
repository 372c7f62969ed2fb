#!/usr/bin/env python3
"""ctest quoted_figures_selftest: scripts/check_quoted_figures.py must fail when a cited figure
changes in its file. On a copy of README.md, docs/ and the cited results/ files: the check
passes as the repository is; then, for a quoted figure of README.md and one of docs/ (each
cited in a text file), every occurrence of that number in the cited files is changed and the
check must fail naming that figure; a synthetic page covers a .json.gz report, a range, the
exemptions and an uncited figure in README.md; a second one seconds and ratios (found, not
found, shapes and counts, a quotient, a derived mark, a report's own ratios); a third a table
whose rows name variants (a figure of another variant's row fails); a fifth figures that name
their product's shape (a figure of another product's section fails); a sixth files of a git
history cited as `git show COMMIT:PATH` (found, not found, a commit the history lacks, a path the
commit lacks, a shallow clone: each fails with its own line).

usage: test_check_quoted_figures.py SOURCE_DIR WORK_DIR
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

from checks import check, done
from scratch import scratch_args

src, work = scratch_args("test_check_quoted_figures.py", os.path.join("scripts", "check_quoted_figures.py"))
script = os.path.join(src, "scripts", "check_quoted_figures.py")


def run(root, *args, history=src):
    # a copy's `git show` citations are read from the repository's own history
    return subprocess.run([sys.executable, script, "--root", root, "--history", history] + list(args),
                          capture_output=True, text=True)


def copy_tree(root):
    os.makedirs(root)
    shutil.copy(os.path.join(src, "README.md"), root)
    shutil.copytree(os.path.join(src, "docs"), os.path.join(root, "docs"))
    for d in ("results",):
        if os.path.isdir(os.path.join(src, d)):
            shutil.copytree(os.path.join(src, d), os.path.join(root, d))


def page(name, files):
    """A folder of work holding files: {path: its text, or the document of a .json.gz report}."""
    root = os.path.join(work, name)
    for rel, body in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if rel.endswith(".json.gz"):
            with gzip.open(path, "wt") as g:
                json.dump(body, g)
        else:
            with open(path, "w") as g:
                g.write(body)
    return root


def append(root, rel, text):
    with open(os.path.join(root, rel), "a") as g:
        g.write(text)


def expect_passes(label, root):
    """The check passes on root; returns its run."""
    r = run(root)
    check(r.returncode == 0, f"{label}: the right figures fail:\n{r.stdout}{r.stderr}")
    return r


def expect_reported(label, root, wants):
    """The check fails on root and names each of wants, and no other README.md figure."""
    r = run(root)
    check(r.returncode == 1, f"{label}: wrong figures pass: exit {r.returncode}\n{r.stdout}")
    for want in wants:
        check(want in r.stdout, f"{label}: not reported: {want}\n{r.stdout}")
    check(r.stdout.count("README.md:") == len(wants), f"{label}: a right figure reported:\n{r.stdout}")


# 1. The repository as it is passes, and says how many figures it checked.
dump = os.path.join(work, "figures.json")
r = run(src, "--dump", dump)
check(r.returncode == 0, f"the check fails on the repository:\n{r.stdout}{r.stderr}")
figures = json.load(open(dump))
check(len(figures) >= 100, f"only {len(figures)} cited figures found")

# 2. Change a cited figure in its file: the check must fail and name it.
def pick(pred):
    for f in figures:
        if (pred(f) and f.get("how", "file") == "file" and f["cites"]
                and all(not c.endswith((".json", ".gz")) and not c.startswith("git show ") for c in f["cites"])):
            return f
    return None


for label, pred in (("README.md", lambda f: f["md"] == "README.md"),
                    ("docs/", lambda f: f["md"].startswith("docs" + os.sep) or f["md"].startswith("docs/"))):
    f = pick(pred)
    check(f is not None, f"no figure of {label} cited in a text file")
    if f is None:
        continue
    root = os.path.join(work, "changed_" + label.strip("/").replace(".", "_"))
    copy_tree(root)
    number = re.compile(r"(?<![\d.])" + re.escape(f["figure"]) + r"(?![\d])")
    found = 0
    for c in f["cites"]:
        path = os.path.join(root, c)
        text = open(path, encoding="utf-8").read()
        changed = number.sub(lambda m: str(float(f["figure"]) + 1.5), text)  # a value no longer quoted
        found += changed != text
        open(path, "w", encoding="utf-8").write(changed)
    check(found > 0, f"{f['cites']}: {f['figure']} not found to change")
    r = run(root)
    check(r.returncode == 1, f"{label}: {f['figure']} changed in {f['cites']}: exit {r.returncode}, expected 1\n{r.stdout}")
    check(f"{f['md']}:{f['line']}:" in r.stdout and f"{f['figure']} is not in" in r.stdout,
          f"{label}: the failure does not name {f['md']}:{f['line']} {f['figure']}:\n{r.stdout}")

# 3. A synthetic page: a gzipped JSON report, a range, exemptions, a table under a caption.
root = page("synthetic", {
    "results/x/run.json.gz": {"results": [{"vs_library": 0.8993, "median_ms": 0.3518}]},
    "results/x/run.md": "| a | 89.9% | 91.3% | 46.44 |\n",
    "README.md": "Fast: 89.9% and 351.8 µs (`results/x/run.json.gz`).\n\n"
                 "A target of ≥ 80%, about 90%, +5% and 100% = as fast need no file.\n\n"
                 "A prediction, 42.0 µs, says so. <!-- unmeasured: a prediction -->\n",
    "docs/a.md": "From `results/x/run.md`:\n\n| step | TFLOP/s |\n|---|--:|\n| a | 46.44 TFLOP/s (89.9–91.3%) |\n\n"
                 "Uncited in docs: 12.5% (fails; --lenient only lists it).\n"})
r = run(root)
check(r.returncode == 1 and "docs/a.md:7: 12.5%: no results/ file cited" in r.stdout,
      f"an uncited figure in docs/ does not fail:\n{r.stdout}{r.stderr}")
r = run(root, "--lenient")
check(r.returncode == 0, f"synthetic page fails with --lenient:\n{r.stdout}{r.stderr}")
check("4 cited figures" in r.stdout or "5 cited figures" in r.stdout, f"synthetic count: {r.stdout}")
r = run(root, "--lenient", "--list")
check("uncited docs/a.md:7: 12.5%" in r.stdout, f"--list does not name the uncited figure:\n{r.stdout}")
append(root, "docs/a.md", "\nWrong: 91.4% (`results/x/run.md`).\n")
append(root, "README.md", "\nUncited in README: 77.7%.\n")
r = run(root)
check(r.returncode == 1, f"synthetic wrong figure: exit {r.returncode}")
check("docs/a.md:9: 91.4%: 91.4 is not in results/x/run.md" in r.stdout, f"wrong figure not named:\n{r.stdout}")
check("README.md:7: 77.7%: no results/ file cited" in r.stdout, f"uncited README figure not named:\n{r.stdout}")

# 4. Seconds and ratios: found in the file, not found, shapes and counts that are no figures, a
# ratio checked as the quotient of its sentence's figures, one marked derived, a report's ratios.
root = page("ratios", {
    "results/x/run.log": "== default: exit 0 in 164 s\nspeed-up 1.06\n| a | 2.572 ms | 1.334 ms |\n",
    "results/x/rep.json.gz": {"results": [{"metric": {"vs_library": 0.8993}, "timing_ms": {"median": 0.3518}}]},
    "README.md": "The run took 164 s and gemm8 is 1.06× faster (`results/x/run.log`).\n\n"
                 "Shapes and counts, no file needed: 4096×4096, 128×128×16, 4097 × 1023, 2²⁸×, M×1, "
                 "on 2× H200, in 3 stages, 1.5 us is µs <!-- unmeasured: units, not figures -->.\n\n"
                 "Uncited shapes: 4096×4096 and 128×128×16 tiles on 2× H200.\n\n"
                 "Derived: 1.93× at 16384² (2.572 against 1.334 ms, `results/x/run.log`).\n\n"
                 "Table (`results/x/run.log`):\n\n| a | b | ratio |\n|---|---|---|\n| 2.572 ms | 1.334 ms | 1.93× |\n\n"
                 "Marked: the padding is worth 5.6× (`results/x/run.log`). <!-- derived: the table's times -->\n\n"
                 "Report: 0.90× of the library (`results/x/rep.json.gz`).\n"})
r = expect_passes("seconds and ratios", root)
check("8 cited figures" in r.stdout,
      f"seconds and ratios: expected 8 figures (164, 1.06, 1.93 twice, 2.572, 1.334 twice, 0.90):\n{r.stdout}")
append(root, "README.md", "\nWrong: 170 s and 1.07× (`results/x/run.log`).\n\n"
       "Wrong quotient: 1.99× (2.572 against 1.334 ms, `results/x/run.log`).\n\n"
       "Unmarked: the padding is worth 5.6× (`results/x/run.log`).\n\n"
       "A report's time is no ratio: 0.35× (`results/x/rep.json.gz`).\n\n"
       "Uncited: 2.5× faster in 12 s.\n")
expect_reported("seconds and ratios", root, ("README.md:19: 170 s: 170 is not in results/x/run.log",
             "README.md:19: 1.07×: 1.07 is not in results/x/run.log",
             "README.md:21: 1.99×: 1.99 is not in results/x/run.log",
             "README.md:23: 5.6×: 5.6 is not in results/x/run.log",
             "README.md:25: 0.35×: 0.35 is not in results/x/rep.json.gz",
             "README.md:27: 2.5×, 12 s: no results/ file cited"))

# 5. A table row that names a variant in its first cell: its figures are looked for in the rows of
# the cited file that name it (rounded to the quoted decimals), so a cell that matches a number of
# another row, left from an older run, fails; a name with "..." stands for part of one; a row
# the file does not name is looked for in the whole file.
root = page("rows", {
    "results/x/rep.md": "| `gemm13_tma_128_r232_at` | 91.3% | 2.543 ms |\n"
                        "| `gemm13_tma_128_r232_at_streamk` | 95.7% | 2.491 ms |\n"
                        "| `cublas_gemm` (library) | 100.0% | 2.659 ms |\n",
    "README.md": "From `results/x/rep.md`:\n\n| step | share | time |\n|---|--:|--:|\n"
                 "| `gemm13_tma_128_r232_at` | 91.3% | 2.543 ms |\n"
                 "| `gemm13_..._r232_at_streamk` | 95.7% | 2.491 ms |\n"
                 "| `cublas_gemm` (library) | 100% | 2.659 ms |\n"
                 "| `gemm_other` | 95.7% | 2.659 ms |\n"})
expect_passes("rows", root)
append(root, "README.md", "\nStale, from `results/x/rep.md`:\n\n| step | share |\n|---|--:|\n"
       "| `gemm13_tma_128_r232_at` | 95.7% |\n| `gemm13_..._r232_at` | 2.491 ms |\n")
expect_reported("rows", root, ("README.md:14: 95.7%: 95.7 is not in the rows of gemm13_tma_128_r232_at in results/x/rep.md",
                               "README.md:15: 2.491 ms: 2.491 is not in the rows of gemm13_..._r232_at in results/x/rep.md"))

# 6. A figure that names its product's shape right before it, or a table row whose first cell is a
# shape, is looked for in that product's sections of the cited files (a JSON report's results of
# that shape), so a number printed in another product's rows fails; a shape the files do not have
# is looked for in the whole file.
root = page("shapes", {
    "results/x/rep.md": "## gemm  float  100x200x300\n\n| `gemm_auto` | 95.7% |\n\n"
                        "## gemm  float  1500x1500x1500\n\n| `gemm_auto` | 91.3% |\n",
    "results/x/rep.json.gz": {"results": [{"shape": "100x200x300", "metric": {"vs_library": 0.957}},
                                          {"shape": "64x64x64", "metric": {"vs_library": 0.881}}]},
    "README.md": "Right: 100×200×300 at 95.7% and 1500³ went from 91.3% to 91.3% (`results/x/rep.md`); "
                 "a shape no section names, 7×7×7 at 91.3% (`results/x/rep.md`); 100 × 200 × 300: 95.7% "
                 "(`results/x/rep.json.gz`).\n\n"
                 "From `results/x/rep.md`:\n\n| product | share |\n|---|--:|\n| 1500³ | 91.3% |\n"
                 "| 100×200×300 (N odd) | 95.7% |\n"})
expect_passes("shapes", root)
append(root, "README.md", "\nStale: 100×200×300 at 91.3% (`results/x/rep.md`); 1500³ runs at 95.7% (`results/x/rep.md`); "
       "100×200×300 at 88.1% (`results/x/rep.json.gz`).\n\n"
       "From `results/x/rep.md`:\n\n| product | share |\n|---|--:|\n| 1500³ | 95.7% |\n")
expect_reported("shapes", root, ("README.md:10: 91.3%: 91.3 is not in the 100x200x300 sections of results/x/rep.md, results/x/rep.json.gz",
             "README.md:10: 95.7%: 95.7 is not in the 1500x1500x1500 sections of results/x/rep.md\n",
             "README.md:10: 88.1%: 88.1 is not in the 100x200x300 sections of results/x/rep.md, results/x/rep.json.gz",
             "README.md:16: 95.7%: 95.7 is not in the 1500x1500x1500 sections of results/x/rep.md\n"))

# 7. Files of a git history, cited as `git show COMMIT:PATH`: read through git, a figure found or
# not; a commit the history lacks, a path the commit lacks and a shallow clone each fail with a
# line that says so, never silently.
hist = os.path.join(work, "history")
os.makedirs(os.path.join(hist, "journal", "x"))


def git(*args, cwd=hist):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"] + list(args),
                          cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


git("init", "-q")
with open(os.path.join(hist, "journal", "x", "old.md"), "w") as g:
    g.write("| `gemm9_a` | 87.8% | 44.98 |\n")
with gzip.open(os.path.join(hist, "journal", "x", "old.json.gz"), "wt") as g:
    json.dump({"results": [{"median_ms": 2.5731}]}, g)
git("add", "-A")
git("commit", "-q", "-m", "old runs")
old = git("rev-parse", "--short=7", "HEAD")
git("rm", "-q", "-r", "journal")
with open(os.path.join(hist, "README.md"), "w") as g:
    g.write("now\n")
git("add", "-A")
git("commit", "-q", "-m", "journal leaves the tree")
os.makedirs(os.path.join(hist, "docs"))
with open(os.path.join(hist, "docs", "h.md"), "w") as g:
    g.write(f"Then 87.8% (`git show {old}:journal/x/old.md`) and 2.573 ms (`git show {old}:journal/x/old.json.gz`).\n\n"
            f"Both: 44.98 TFLOP/s (`git show {old}:journal/x/old.{{md,json.gz}}`), every file: 87.8% (`git show {old}:journal/x/*`).\n")
r = run(hist, history=hist)
check(r.returncode == 0 and "4 cited figures" in r.stdout, f"history: the cited files are not read:\n{r.stdout}{r.stderr}")
with open(os.path.join(hist, "docs", "h.md"), "a") as g:
    g.write(f"\nWrong: 88.8% (`git show {old}:journal/x/old.md`).\n\n"
            f"No such commit: 1.5 ms (`git show 1234567:journal/x/old.md`).\n\n"
            f"No such path: 1.5 ms (`git show {old}:journal/x/gone.md`).\n")
r = run(hist, history=hist)
check(r.returncode == 1, f"history: wrong citations pass: exit {r.returncode}\n{r.stdout}")
for want in (f"docs/h.md:5: 88.8%: 88.8 is not in git show {old}:journal/x/old.md",
             "docs/h.md:7: `git show 1234567:journal/x/old.md`: commit 1234567 is not in the history",
             f"docs/h.md:9: `git show {old}:journal/x/gone.md`: {old} has no journal/x/gone.md"):
    check(want in r.stdout, f"history: not reported: {want}\n{r.stdout}")
shallow = os.path.join(work, "shallow")
subprocess.run(["git", "clone", "-q", "--depth", "1", "file://" + hist, shallow], capture_output=True, check=True)
os.makedirs(os.path.join(shallow, "docs"), exist_ok=True)
shutil.copy(os.path.join(hist, "docs", "h.md"), os.path.join(shallow, "docs", "h.md"))
r = run(shallow, history=shallow)
check(r.returncode == 1 and f"commit {old} is not in the history" in r.stdout and "shallow clone" in r.stdout,
      f"history: a shallow clone does not fail with its reason:\n{r.stdout}{r.stderr}")
r = run(hist, history=os.path.join(work, "synthetic"))
check(r.returncode == 1 and "is not a git repository" in r.stdout,
      f"history: no repository does not fail with its reason:\n{r.stdout}{r.stderr}")

done(f"{len(figures)} figures in the repository, {{n}} failures")
