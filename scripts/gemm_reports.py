"""What scripts/fit_gemm_model.py and scripts/gemm_auto_fixture.py read from compare reports: the
median of every gemm row that ran, by product; and from gemm_auto's table of steps, each step's
name and type. The two are run together on the gemm_auto stage's reports (CONTRIBUTING.md), so
they read them one way.

A report is a compare report (.json or .json.gz), or COMMIT:PATH for one as it was at a commit
(read with git show, so a data file can name inputs that have since been regenerated).
"""
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

STEPS_TABLE = Path(__file__).resolve().parent.parent / "handwritten/gemm/gemm_auto_steps.hpp"


def read(spec):
    """One report, or one line and exit 1 where it cannot be read or is not a report."""
    try:
        if ":" in spec and not spec.startswith("/"):
            data = subprocess.run(["git", "show", spec], capture_output=True, check=True).stdout
        else:
            with open(spec, "rb") as f:
                data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        report = json.loads(data)
        if not isinstance(report.get("results"), list):
            raise ValueError('no "results" array')
        return report
    except (OSError, ValueError, AttributeError, subprocess.CalledProcessError) as e:
        sys.exit(f"{spec}: not a compare report ({e.__class__.__name__}: {e})")


def gemm_medians(specs):
    """{(dtype, M, N, K): {variant: median ms}} over the gemm rows of the reports that ran."""
    times = {}
    for spec in specs:
        for r in read(spec)["results"]:
            if r.get("family") == "gemm" and r.get("status") == "ok":
                times.setdefault((r["dtype"], *r["dims"]), {})[r["variant"]] = r["timing_ms"]["median"]
    return times


def tiled(M, N, K):
    """A product gemm_auto's shortlist decides: not a matrix-vector product, not thin K."""
    return M > 1 and N > 1 and K > 4


def auto_steps():
    """{step name: "float" or "double"} for every row of gemm_auto's table (its X(...) rows)."""
    return {name: dtype for dtype, name in re.findall(r'X\(\w+,\s*(\w+),\s*"([^"]+)"', STEPS_TABLE.read_text())}
