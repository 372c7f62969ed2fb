#!/usr/bin/env python3
"""scripts/gemm_ragged_pairs.py over made-up reports (no GPU needed).

usage: test_gemm_ragged_pairs.py SOURCE_DIR WORK_DIR

Checked: `list` names the ragged products below the library, lowest first, each followed by its
neighbour (N and K rounded down to 4 floats, 2 doubles), leaves out aligned products, products at
or above the library (99.96% counts as at), and products with N or K below a vector, and honours
--worst; `cost` pairs each ragged product with its neighbour in one report and gives the medians
and the count at or above; reports of two types, a report without the variant's rows and a file
that is no report are refused with one line and exit status 1.
"""
import json
import os
import subprocess
import sys

from checks import check, done

src, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
script = os.path.join(src, "scripts", "gemm_ragged_pairs.py")


def row(dims, variant, share, ms, dtype="float", source="handwritten"):
    return {"family": "gemm", "dtype": dtype, "dims": list(dims), "shape": "x".join(map(str, dims)),
            "variant": variant, "source": source, "status": "ok", "timing_ms": {"median": ms},
            "metric": {"vs_library": share, "library": "cublas_gemm"}}


def lib(dims, ms, dtype="float"):
    return row(dims, "cublas_gemm", 1.0, ms, dtype, "library")


def write(name, results):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump({"results": results}, f)
    return path


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


sweep = write("sweep.json", [
    row((100, 101, 50), "gemm_auto", 0.80, 1.0), lib((100, 101, 50), 0.8),      # N ragged: listed second
    row((200, 64, 33), "gemm_auto", 0.70, 1.0), lib((200, 64, 33), 0.7),        # K ragged: listed first
    row((300, 64, 64), "gemm_auto", 0.60, 1.0),                                  # aligned: left out
    row((400, 3, 50), "gemm_auto", 0.50, 1.0),                                   # N below a vector: no neighbour
    row((500, 501, 50), "gemm_auto", 0.9996, 1.0),                               # prints 100.0%: at the library
    row((600, 601, 50), "gemm10_x", 0.95, 1.0),                                  # another variant
])
r = run("list", sweep)
check(r.returncode == 0 and r.stdout == "200x64x33,200x64x32,100x101x50,100x100x48\n",
      f"list: the ragged products below, lowest first, each with its neighbour (got {r.returncode}: {r.stdout!r} {r.stderr!r})")
r = run("list", "--worst", "1", sweep)
check(r.stdout == "200x64x33,200x64x32\n", f"list --worst 1 (got {r.stdout!r})")
r = run("list", "--variant", "gemm10_x", sweep)
check(r.stdout == "600x601x50,600x600x48\n", f"list --variant (got {r.stdout!r})")
dbl = write("double.json", [row((100, 101, 51), "gemm_auto", 0.8, 1.0, "double")])
r = run("list", dbl)
check(r.stdout == "100x101x51,100x100x50\n", f"double: rounded to 2 elements (got {r.stdout!r})")
r = run("list", sweep, dbl)
check(r.returncode == 1 and "one type" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
      f"two types refused with one line (got {r.returncode}: {r.stderr!r})")
at = write("at.json", [row((100, 101, 50), "gemm_auto", 1.2, 1.0)])
r = run("list", at)
check(r.returncode == 0 and r.stdout == "\n", f"none below: an empty line (got {r.stdout!r})")

pairs = write("pairs.json", [
    row((100, 101, 50), "gemm_auto", 0.80, 1.0), lib((100, 101, 50), 0.80),
    row((100, 100, 48), "gemm_auto", 1.10, 0.5), lib((100, 100, 48), 0.55),    # neighbour: half the time, above
    row((200, 64, 33), "gemm_auto", 0.70, 1.0), lib((200, 64, 33), 0.70),
    row((200, 64, 32), "gemm_auto", 0.90, 0.7), lib((200, 64, 32), 0.63),      # neighbour: 0.7, below
    row((300, 301, 50), "gemm_auto", 0.9, 1.0),                                 # no neighbour in the report
])
r = run("cost", pairs)
last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
check(r.returncode == 0 and "2 pairs" in last and "gemm_auto 0.600" in last and "library 0.794" in last
      and "on 1 of 2 neighbours" in last,
      f"cost: two pairs, median time ratios 0.6 (0.5, 0.7) and 0.794 (0.6875, 0.9), 1 of 2 above (got {r.returncode}: {r.stdout!r} {r.stderr!r})")
check(len(r.stdout.strip().splitlines()) == 3, f"cost: a line per pair, then the summary (got {r.stdout!r})")
r = run("cost", at)
check(r.returncode == 1 and "no ragged product beside its neighbour" in r.stderr, f"cost without pairs refused (got {r.stderr!r})")

r = run("list", "--variant", "gemm_nothing", sweep)
check(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "no gemm rows of gemm_nothing" in r.stderr,
      f"no rows of the variant: one line, exit 1 (got {r.returncode}: {r.stderr!r})")
r = run("list", os.path.join(src, "README.md"))
check(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "not a compare report" in r.stderr,
      f"a file that is no report: one line, exit 1 (got {r.returncode}: {r.stderr!r})")

done("gemm_ragged_pairs.py: {n} failures")
