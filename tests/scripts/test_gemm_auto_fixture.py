#!/usr/bin/env python3
"""scripts/gemm_auto_fixture.py over a made-up report (no GPU needed).

usage: test_gemm_auto_fixture.py SOURCE_DIR WORK_DIR

Checked: a product's row names the gemm_auto steps within 3% of the fastest (a list row that is no
step left out, the gemm10 split row named as the step's /fill); a product where gemm_auto's own
row beat every step by more than 3% is left out; matrix-vector and thin-K shapes are left out; a
file that is not a report is refused with one line.
"""
import json
import os
import subprocess
import sys

from checks import check, done

src, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def row(dims, variant, ms, dtype="float"):
    return {"family": "gemm", "dtype": dtype, "dims": dims, "variant": variant, "status": "ok",
            "timing_ms": {"median": ms}}


g10, g9 = "gemm10_swizzled_64x64x16_w32x32_t4x8_s4", "gemm9_pipelined_64x64x16_w32x32_t4x8_s4"
results = [
    # 300x500x70: the split row fastest, gemm9 within 3% of it, gemm10 not; a non-step row faster still
    row([300, 500, 70], "gemm10_splitk_64x64x16_w32x32_t4x8_s4", 1.00),
    row([300, 500, 70], g9, 1.02), row([300, 500, 70], g10, 1.10),
    row([300, 500, 70], "gemm10_swizzled_128x256x16_w64x64_t8x16_s3", 0.50),
    row([300, 500, 70], "gemm_auto", 1.00), row([300, 500, 70], "cublas_gemm", 0.9),
    # 400x400x400: gemm_auto 10% ahead of every list row (a split of its model's): left out
    row([400, 400, 400], g10, 1.00), row([400, 400, 400], "gemm_auto", 0.90),
    # N = 1 and K = 3: not the shortlist's shapes
    row([4096, 1, 4096], g10, 1.0), row([4096, 1, 4096], "gemm_auto", 1.0),
    row([64, 64, 3], g10, 1.0), row([64, 64, 3], "gemm_auto", 1.0),
    # a failed row does not count
    dict(row([300, 500, 70], "gemm11_dmma_32x32x16_w16x16_s4_k8", 0.1), status="fail"),
]
report = os.path.join(work, "report.json")
with open(report, "w") as f:
    json.dump({"results": results}, f)

script = os.path.join(src, "scripts", "gemm_auto_fixture.py")
r = subprocess.run([sys.executable, script, "T", report], capture_output=True, text=True)
check(r.returncode == 0, f"exits 0 (got {r.returncode}: {r.stderr.strip()})")
lines = r.stdout.strip().splitlines()
want = f"T\tfloat\t300\t500\t70\t{g10}/fill {g9}"
check(lines == [want], f"one row, {want!r} (got {lines!r})")
check("1 products, 1 left out" in r.stderr, f"the count on stderr (got {r.stderr.strip()!r})")

r = subprocess.run([sys.executable, script, "T", os.path.join(src, "README.md")], capture_output=True, text=True)
err = r.stderr.strip().splitlines()
check(r.returncode != 0 and len(err) == 1 and "not a compare report" in err[0],
      f"a file that is no report: one line, non-zero exit (got {r.returncode}: {r.stderr.strip()!r})")

done("gemm_auto_fixture.py: {n} failures")
