#!/usr/bin/env python3
"""scripts/gemm_auto_summary.py over a made-up report (no GPU needed).

usage: test_gemm_auto_summary.py SOURCE_DIR WORK_DIR

Checked: the count at or above the library (a share that prints as 100.0% counts, one that prints
as 99.9% does not), the median, the lowest product, the count below 95%; the products below 100%
lowest first, each with the fastest other hand-written row (a library row is never it); --ahead;
types
apart; failed rows and rows without a share left out; --worst; each --require-* met and missed,
with the exit status; a report without the variant's rows and a file that is no report refused
with one line; --profile-list's -s and -v lists, and its refusals.
"""
import json
import os
import subprocess
import sys

from checks import check, done

src, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def row(shape, variant, share, dtype="double", source="handwritten", status="ok"):
    return {"family": "gemm", "dtype": dtype, "shape": shape, "variant": variant, "source": source,
            "status": status, "metric": {"vs_library": share}}


g11 = "gemm11_dmma_64x64x16_w32x32_s4_k8_pf"
results = [
    row("100x100x100", "gemm_auto", 1.20), row("100x100x100", g11, 1.10),
    row("200x200x200", "gemm_auto", 0.9996),  # prints 100.0%: at the library
    row("300x300x300", "gemm_auto", 0.9994), row("300x300x300", g11, 0.97),  # prints 99.9%
    row("400x400x400", "gemm_auto", 0.90), row("400x400x400", g11, 0.93),
    row("400x400x400", "cublas_gemm", 1.0, source="library"),
    row("500x500x500", "gemm_auto", 2.0, status="fail"),  # failed: not counted
    {"family": "gemm", "dtype": "double", "shape": "600x600x600", "variant": "gemm_auto", "status": "ok",
     "source": "handwritten", "metric": {}},  # no share: not counted
    row("100x100x100", "gemm_auto", 1.05, dtype="float"),
]
report = os.path.join(work, "report.json")
with open(report, "w") as f:
    json.dump({"results": results}, f)
script = os.path.join(src, "scripts", "gemm_auto_summary.py")


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


r = run(report)
out = r.stdout.strip().splitlines()
check(r.returncode == 0, f"exits 0 without requirements (got {r.returncode}: {r.stderr.strip()})")
check(len(out) == 4, f"double: a summary and two products below; float: a summary (got {out!r})")
d = next((l for l in out if "gemm double" in l), "")
check("at or above the library on 2 of 4" in d, f"2 of 4 at or above (99.96% counts, 99.94% not) (got {d!r})")
check("median 100.0%" in d and "lowest 90.0% (400x400x400)" in d and "1 below 95%" in d,
      f"median, lowest, below 95% (got {d!r})")
below = [l.split()[0] for l in out if l.startswith("  ")]
check(below == ["400x400x400", "300x300x300"], f"the products below 100%, lowest first (got {below!r})")
check(f"fastest other: {g11} 93.0%" in next((l for l in out if "400x400x400" in l and l.startswith("  ")), ""),
      "the fastest other hand-written row, not the library's")
check(any("gemm float" in l and "1 of 1" in l for l in out), "float apart")

r = run("--worst", "1", report)
check(len([l for l in r.stdout.splitlines() if l.startswith("  ")]) == 1, "--worst 1: one product listed")

r = run("--ahead", "3", report)
ahead = r.stdout.split("with another row more than 3% faster")
check(r.returncode == 0 and "1 of 4 with another row more than 3% faster" in r.stdout,
      f"--ahead 3: one double product with a faster row (0.93 over 0.90; 0.97 over 0.9994 is slower) (got {r.stdout!r})")
check(len(ahead) > 1 and "400x400x400" in ahead[1].split("gemm float")[0] and "3.3% faster" in ahead[1],
      f"--ahead 3 names 400x400x400 and by how much (got {r.stdout!r})")
r = run("--ahead", "4", report)
check("0 of 4 with another row more than 4% faster" in r.stdout, f"--ahead 4: none (got {r.stdout!r})")

r = run("--require-share", "1/2", "--require-median", "0.99", "--require-floor", "0.9", report)
check(r.returncode == 0, f"requirements met: exit 0 (got {r.returncode}: {r.stderr.strip()})")
r = run("--require-share", "3/4", report)
check(r.returncode == 1 and "2 of 4 at or above, fewer than 3/4" in r.stderr, f"share missed (got {r.stderr!r})")
r = run("--require-median", "1.0", report)
check(r.returncode == 0, f"a median that prints as 100.0% meets 1.0 (got {r.returncode}: {r.stderr.strip()})")
r = run("--require-median", "1.01", report)
check(r.returncode == 1 and "median 100.0%, below 101.0%" in r.stderr, f"median missed (got {r.stderr!r})")
r = run("--require-floor", "0.95", report)
check(r.returncode == 1 and "lowest 90.0% (400x400x400)" in r.stderr, f"floor missed (got {r.stderr!r})")
r = run("--require-share", "5/4", report)
check(r.returncode == 2, f"a share above 1 is bad usage (got {r.returncode})")

# --profile-list: one report of one type; the products below, lowest first, and the rows to profile.
one = os.path.join(work, "double.json")
with open(one, "w") as f:
    json.dump({"results": [dict(r, metric=dict(r["metric"], library="cublas_gemm"))
                           for r in results if r["dtype"] == "double"]}, f)
r = run("--profile-list", one)
check(r.returncode == 0 and r.stdout == f"400x400x400,300x300x300\t{g11},cublas_gemm\n",
      f"--profile-list: the shapes below as -s, the fastest other row (once) and the library as -v "
      f"(got {r.returncode}: {r.stdout!r} {r.stderr!r})")
r = run("--profile-list", "--worst", "1", one)
check(r.stdout == f"400x400x400\t{g11},cublas_gemm\n", f"--profile-list --worst 1 (got {r.stdout!r})")
r = run("--profile-list", "--variant", g11, one)
check(r.returncode == 0 and r.stdout.startswith("400x400x400,300x300x300\t"), f"another variant's products below (got {r.stdout!r})")
with open(one, "w") as f:
    json.dump({"results": [row("100x100x100", "gemm_auto", 1.2)]}, f)
r = run("--profile-list", one)
check(r.returncode == 0 and r.stdout == "\t\n", f"none below: an empty line (got {r.stdout!r})")
r = run("--profile-list", report)
check(r.returncode == 1 and "one family and type" in r.stderr, f"two types refused (got {r.returncode}: {r.stderr!r})")
r = run("--profile-list", one, one)
check(r.returncode == 2, f"two reports refused (got {r.returncode})")

r = run("--variant", "gemm_nothing", report)
err = r.stderr.strip().splitlines()
check(r.returncode == 1 and len(err) == 1 and "no gemm or aat rows of gemm_nothing" in err[0],
      f"no rows of the variant: one line, exit 1 (got {r.returncode}: {r.stderr.strip()!r})")
r = run(os.path.join(src, "README.md"))
err = r.stderr.strip().splitlines()
check(r.returncode == 1 and len(err) == 1 and "not a compare report" in err[0],
      f"a file that is no report: one line, exit 1 (got {r.returncode}: {r.stderr.strip()!r})")

done("gemm_auto_summary.py: {n} failures")
