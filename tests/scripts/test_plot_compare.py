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
import re
import subprocess
import sys
import zlib

from checks import check, done
from scratch import scratch_args

try:
    import matplotlib  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        # CI installs matplotlib through scripts/deps.sh: its absence there is a broken set-up.
        print("plot_compare: error: matplotlib is missing under CI (scripts/deps.sh installs python3-matplotlib)")
        sys.exit(1)
    print("plot_compare: SKIPPED: matplotlib is missing (apt-get install python3-matplotlib, or pip install matplotlib)")
    sys.exit(77)

src, work = scratch_args("test_plot_compare.py", os.path.join("scripts", "plot_compare.py"))
script = os.path.join(src, "scripts", "plot_compare.py")
def run(args):
    return subprocess.run([sys.executable, script] + args, capture_output=True, text=True)


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
# Unrelated sizes (the default run's dot: 1000, 1024, 1025, 2^28): grouped bars, never a line.
for n in (1000, 1024, 1025, 2**28):
    for variant, source, gbps in (("dot1", "handwritten", 1.0 + n / 1e5), ("cublas_dot", "library", 2.0 + n / 9e4)):
        r = row(variant, n, gbps, source=source)
        r.update(family="dot", shape=f"n={n}", dims=[n])
        rows.append(r)
# Powers of two with a gap of 2^18 between the last two: not a sweep either.
for n in (1024, 2048, 4096, 2**30):
    for variant, source in (("reduce1", "handwritten"), ("cub_reduce", "library")):
        r = row(variant, n, n / 1e6 + 1, source=source)
        r.update(family="reduce", shape=f"n={n}", dims=[n])
        rows.append(r)
# Three sizes, even powers of four: too few for a sweep.
for n in (1024, 4096, 16384):
    r = row("table1", n, n / 100)
    r.update(family="table", shape=f"n={n}", dims=[n])
    rows.append(r)
# A long power-of-two sweep (2^0..2^30, 31 sizes): lines, 2^k labels, thinned so none overlap.
for k in range(0, 31):
    for variant, source in (("copy1", "handwritten"), ("cuda_memcpy", "library")):
        r = row(variant, 2**k, 2**k / 1e6 + 1, source=source)
        r.update(family="copy", shape=f"n={2**k}", dims=[2**k])
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
# One run per report, each into its own folder (reports of different runs share names), all at
# once (the test takes as long as the slowest).
procs = [(report, subprocess.Popen([sys.executable, script, report, "-o", os.path.join(out, str(i))],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
         for i, report in enumerate(reports + [os.path.join(work, "synthetic.json")])]
for report, p in procs:
    stdout, stderr = p.communicate()
    check(p.returncode == 0, f"plot_compare.py {report} failed: {stderr.strip()}")
    pictures = stdout.split()
    check(len(pictures) >= 1, f"{report}: no picture")
    written += pictures
    skipped_words[report] = stderr
    # A family whose every row was skipped (the one-GPU all-reduce) gets a line, not a picture.
    check(not any("allreduce" in os.path.basename(p) for p in pictures),
          f"{report}: a picture of rows that were all skipped: {pictures}")
for p in written:
    check(os.path.isfile(p) and os.path.getsize(p) > 10000, f"missing or empty: {p}")
names = {os.path.basename(p) for p in written}
for expected in ("synthetic-rows-float-op=row_sum-sweep.png", "synthetic-rows-float-op=row_max-sweep.png",
                 "synthetic-rows-float-ladder.png", "synthetic-gemv-float-sweep.png"):
    check(expected in names, f"not written: {expected} (got {sorted(names)})")


def png_description(path):
    """The PNG's tEXt "Description" (plot_compare.py writes what it drew there), parsed into a dict."""
    with open(path, "rb") as f:
        data = f.read()
    i, text = 8, {}
    while i + 8 <= len(data):
        length, kind = int.from_bytes(data[i:i + 4], "big"), data[i + 4:i + 8]
        body = data[i + 8:i + 8 + length]
        if kind == b"tEXt":
            k, _, v = body.partition(b"\0")
            text[k.decode("latin-1")] = v.decode("latin-1")
        elif kind == b"iTXt":  # keyword, compressed?, method, language, translated keyword, UTF-8 text
            k, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            v = rest.split(b"\0", 2)[2]
            text[k.decode("latin-1")] = (zlib.decompress(v) if compressed else v).decode("utf-8")
        i += 12 + length
    return dict(p.split("=", 1) for p in text.get("Description", "").split("; ") if "=" in p)


by_name = {os.path.basename(p): p for p in written}


def kind_of(name):
    return png_description(by_name[name]).get("kind") if name in by_name else None


# Sweeps (a geometric progression of four or more sizes) are lines on a log x axis whose tick
# labels do not overlap, 2^k where every size is a power of two.
for name in ("synthetic-rows-float-op=row_sum-sweep.png", "synthetic-copy-float-sweep.png",
             "synthetic-gemv-float-sweep.png"):
    d = png_description(by_name[name]) if name in by_name else {}
    check(d.get("kind") == "lines", f"{name}: kind {d.get('kind')!r}, expected lines")
    scales = [v for k, v in d.items() if k.endswith(".xscale")]
    check(len(scales) == 2 and all(v == "log" for v in scales), f"{name}: x scales {scales}, expected log on both panels")
    check(not any(k.endswith(".overlap") and v != "no" for k, v in d.items()), f"{name}: overlapping x tick labels: {d}")
    if "gemv" not in name:
        ticks = [t for k, v in d.items() if k.endswith(".xticks") for t in v.split("|") if t]
        check(ticks and all(re.fullmatch("2[⁰¹²³⁴⁵⁶⁷⁸⁹]+", t) for t in ticks), f"{name}: x tick labels {ticks}, expected 2^k")
d = png_description(by_name["synthetic-copy-float-sweep.png"]) if "synthetic-copy-float-sweep.png" in by_name else {}
check(0 < len(d.get("ax0.xticks", "").split("|")) < 31, f"31 sizes: ticks not thinned: {d.get('ax0.xticks')}")
# Unrelated sizes are grouped bars (one group per size), and no line joins them.
for fam in ("dot", "reduce", "table"):
    check(kind_of(f"synthetic-{fam}-float-sizes.png") == "bars",
          f"synthetic {fam}: kind {kind_of(f'synthetic-{fam}-float-sizes.png')!r}, expected bars")
    check(f"synthetic-{fam}-float-sweep.png" not in names, f"synthetic {fam}: unrelated sizes drawn as a sweep")
check(kind_of("report-schema2-default-subset-dot-float-sizes.png") == "bars",
      "the default run's dot (1000, 1024, 1025, 2^28) is not drawn as bars")
check(not any(n.startswith("report-schema2-default-subset") and n.endswith("-sweep.png") for n in names),
      f"a sweep picture of the default run's unrelated sizes: {sorted(names)}")
check(kind_of("synthetic-rows-float-ladder.png") == "ladder", "a single size is not a ladder")

# The rule itself.
sys.path.insert(0, os.path.join(src, "scripts"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import plot_compare  # noqa: E402

for xs, want in (([2**k for k in range(10, 21)], True), ([1000, 1024, 1025, 2**28], False),
                 ([1024, 2048, 4096, 2**30], False), ([1024, 4096, 16384], False),
                 ([5e5, 1e6, 1.5e6, 2e6, 3e6, 3.75e6, 5e6], True), ([1000, 2000, 3000, 4000], False)):
    check(plot_compare.is_geometric(xs) == want, f"is_geometric({xs}) is not {want}")

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

done(f"{len(written)} pictures, {{n}} failures")
