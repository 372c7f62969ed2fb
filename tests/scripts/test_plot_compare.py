#!/usr/bin/env python3
"""ctest plot_compare: scripts/plot_compare.py renders the fixture reports of tests/fixtures/ (one
per schema version, one of them gzipped; each on its own) and a synthetic schema-2 report (a sweep
with a failing configuration, a string axis, a single size, a family whose every row is skipped:
no picture), and refuses bad input, a JSON file that is not a report among it, with exit status 2.
Exit 77 (ctest: Skipped) without matplotlib; scripts/deps.sh installs it, so a build made through
the project's scripts never skips this test.

usage: test_plot_compare.py SOURCE_DIR WORK_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys

try:
    import matplotlib  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        # CI installs matplotlib through scripts/deps.sh: its absence there is a broken set-up.
        print("plot_compare: error: matplotlib is missing under CI (scripts/deps.sh installs python3-matplotlib)")
        sys.exit(1)
    print("plot_compare: SKIPPED: matplotlib is missing (apt-get install python3-matplotlib, or pip install matplotlib)")
    sys.exit(77)

src, work = sys.argv[1], sys.argv[2]
script = os.path.join(src, "scripts", "plot_compare.py")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def run(args):
    return subprocess.run([sys.executable, script] + args, capture_output=True, text=True)


def check(cond, what):
    if not cond:
        failures.append(what)


def row(variant, n, gbps, status="ok", source="handwritten", axes=None):
    r = {"family": "rows", "dtype": "float", "shape": f"{n}x64" + (f" op={axes}" if axes else ""), "dims": [n, 64],
         "variant": variant, "source": source, "status": status}
    if axes:
        r["axes"] = {"op": axes}
    if status == "ok":
        r["timing_ms"] = {"count": 3, "median": 1.0, "samples": [1.0, 1.0, 1.0], "noise": 0.0}
        r["metric"] = {"throughput": gbps, "unit": "GB/s", "work_unit": "bytes", "vs_library": gbps / 1000.0,
                       "vs_ceiling": gbps / 3000.0, "ceiling": "d2d copy 3000 GB/s (measured)"}
    return r


rows = []
for n in (1024, 4096, 16384, 65536):
    for op in ("row_sum", "row_max"):
        rows.append(row("step1", n, n / 100, axes=op))
        rows.append(row("step2_tiled_32x8", n, n / 80, axes=op))
        rows.append(row("step2_tiled_64x4", n, n / 90, "FAIL" if n == 4096 else "ok", axes=op))
        rows.append(row("lib", n, 1000, source="library", axes=op))
rows.append(row("step1", 777, 5.0))
rows.append(row("lib", 777, 9.0, source="library"))
# Matrices growing in both dimensions (document 003's sweep): a sweep against M·N.
for m, n in ((1000, 500), (1000, 1000), (1500, 1000), (2000, 1500), (2500, 2000)):
    for variant, source, gbps in (("gemv1", "handwritten", m * n / 1e4), ("cublas", "library", m * n / 5e3)):
        r = row(variant, m, gbps, source=source)
        r.update(family="gemv", shape=f"{m}x{n}", dims=[m, n])
        rows.append(r)
# A family whose every row is skipped (allreduce on one GPU): no picture, and a line on stderr.
for n in (1024, 4096):
    for variant in ("allreduce1", "nccl"):
        r = row(variant, n, 0, status="skipped", source="library" if variant == "nccl" else "handwritten")
        r.update(family="allreduce", shape=f"n={n} gpus=1", dims=[n], note="needs at least 2 GPUs")
        rows.append(r)
synthetic = {"schema": "kernel-ladder/compare/2", "git_commit": "abc", "device": {"name": "Test GPU"}, "results": rows}
with open(os.path.join(work, "synthetic.json"), "w") as f:
    json.dump(synthetic, f)

fixtures = os.path.join(src, "tests", "fixtures")
reports = sorted(glob.glob(os.path.join(fixtures, "report-*.json")) +
                 glob.glob(os.path.join(fixtures, "report-*.json.gz")))
check(any(p.endswith(".json.gz") for p in reports), "no .json.gz fixture report in tests/fixtures/")
out = os.path.join(work, "png")
written = []
skipped_words = {}
# One run per report, each into its own folder (reports of different runs share names).
for i, report in enumerate(reports + [os.path.join(work, "synthetic.json")]):
    r = run([report, "-o", os.path.join(out, str(i))])
    check(r.returncode == 0, f"plot_compare.py {report} failed: {r.stderr.strip()}")
    pictures = r.stdout.split()
    check(len(pictures) >= 1, f"{report}: no picture")
    written += pictures
    skipped_words[report] = r.stderr
    # A family whose every row was skipped (the one-GPU all-reduce) gets a line, not a picture.
    check(not any("allreduce" in os.path.basename(p) for p in pictures),
          f"{report}: a picture of rows that were all skipped: {pictures}")
for p in written:
    check(os.path.isfile(p) and os.path.getsize(p) > 10000, f"missing or empty: {p}")
names = {os.path.basename(p) for p in written}
for expected in ("synthetic-rows-float-op=row_sum-sweep.png", "synthetic-rows-float-op=row_max-sweep.png",
                 "synthetic-rows-float-ladder.png", "synthetic-gemv-float-sweep.png"):
    check(expected in names, f"not written: {expected} (got {sorted(names)})")
last = skipped_words[os.path.join(work, "synthetic.json")]
check("allreduce float" in last and "every row skipped" in last, f"no word on the skipped family: {last!r}")
# No committed picture is of a family whose every row was skipped.
results = os.path.join(src, "results")
for png in glob.glob(os.path.join(results, "**", "plots", "*allreduce*gpus=1*.png"), recursive=True):
    check(False, f"committed picture of skipped rows: {png}")

bad = os.path.join(work, "bad.json")
with open(bad, "w") as f:
    f.write('{"benchmarks": []}')
# A JSON file that is not a report (compare/diff/config-renames.json is one) is refused, not drawn.
not_report = os.path.join(fixtures, "not-a-report-config-renames.json")
for args in ([bad, "-o", out], [os.path.join(work, "missing.json"), "-o", out], [not_report, "-o", out]):
    r = run(args)
    check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2")
    check(r.stderr.count("\n") == 1 and "plot_compare.py: error:" in r.stderr, f"{args}: stderr {r.stderr!r}")

for f in failures:
    print("FAIL:", f)
print(f"{len(written)} pictures, {len(failures)} failures")
sys.exit(1 if failures else 0)
