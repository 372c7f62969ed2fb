#!/usr/bin/env python3
"""What ragged rows cost a gemm variant (by default gemm_auto): its products below the library
whose rows are ragged (N or K not a whole number of 16-byte vectors: 4 floats, 2 doubles), each
beside its aligned neighbour, the same M with N and K rounded down to whole vectors, timed in
one compare run.

usage:
  scripts/gemm_ragged_pairs.py list [--variant NAME] [--worst N] REPORT [REPORT ...]
      The reports' ragged products below the library, lowest share first (at most N, default 16),
      each followed by its neighbour, as compare's -s list (an empty line when none). The reports
      hold one type between them.
  scripts/gemm_ragged_pairs.py cost [--variant NAME] REPORT
      Each ragged product of REPORT whose neighbour REPORT also holds: the variant's and the
      library's times on both, the variant's share of the library on both; then the medians of
      the neighbour's time over the ragged product's, the variant's and the library's, and on how
      many neighbours the variant is at or above the library.

REPORT: a compare report (.json or .json.gz), or COMMIT:PATH. A product whose N or K is smaller
than a vector has no neighbour and is left out. A file that is not a report, reports of more
than one type, or no rows of the variant: one line on stderr and exit status 1.
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gemm_auto_summary import share_at_or_above  # noqa: E402
from gemm_reports import read  # noqa: E402

VECTOR = {"float": 4, "double": 2}  # elements of a 16-byte vector


def rows_of(specs, variant):
    """{shape (M, N, K): {"share": s, "ms": t, "lib_ms": t}} of the variant's gemm rows, and the type."""
    found, types = {}, set()
    for spec in specs:
        report = read(spec)
        lib = {}
        for r in report["results"]:
            if r.get("family") == "gemm" and r.get("status") == "ok" and r.get("source") == "library":
                lib[(r["dtype"], tuple(r["dims"]))] = r["timing_ms"]["median"]
        for r in report["results"]:
            share = (r.get("metric") or {}).get("vs_library")
            if r.get("family") != "gemm" or r.get("status") != "ok" or r.get("variant") != variant or share is None:
                continue
            types.add(r["dtype"])
            dims = tuple(r["dims"])
            found[dims] = {"share": share, "ms": r["timing_ms"]["median"], "lib_ms": lib.get((r["dtype"], dims))}
    if not found:
        sys.exit(f"gemm_ragged_pairs.py: no gemm rows of {variant} with a share of the library in {', '.join(specs)}")
    if len(types) != 1 or next(iter(types)) not in VECTOR:
        sys.exit(f"gemm_ragged_pairs.py: the reports hold {' and '.join(sorted(types))} rows: give one type "
                 f"({' or '.join(sorted(VECTOR))}) at a time")
    return found, VECTOR[next(iter(types))]


def neighbour(dims, w):
    """The aligned neighbour of a ragged product, or None (aligned already, or N or K below a vector)."""
    m, n, k = dims
    if (n % w == 0 and k % w == 0) or n < w or k < w:
        return None
    return (m, n // w * w, k // w * w)


def shape(dims):
    return "x".join(str(d) for d in dims)


def listing(a):
    found, w = rows_of(a.reports, a.variant)
    below = sorted((d for d, r in found.items() if not share_at_or_above(r["share"]) and neighbour(d, w)),
                   key=lambda d: found[d]["share"])[: a.worst]
    print(",".join(f"{shape(d)},{shape(neighbour(d, w))}" for d in below))
    return 0


def cost(a):
    found, w = rows_of([a.report], a.variant)
    pairs = [(d, neighbour(d, w)) for d in sorted(found) if neighbour(d, w) in found]
    if not pairs:
        sys.exit(f"gemm_ragged_pairs.py: {a.report} holds no ragged product beside its neighbour")
    mine, lib, above = [], [], 0
    for d, n in pairs:
        r, q = found[d], found[n]
        print(f"  {shape(d):>18} {r['ms'] * 1e3:9.2f} us {r['share'] * 100:6.1f}%   {shape(n):>18} {q['ms'] * 1e3:9.2f} us "
              f"{q['share'] * 100:6.1f}%")
        mine.append(q["ms"] / r["ms"])
        if r["lib_ms"] and q["lib_ms"]:
            lib.append(q["lib_ms"] / r["lib_ms"])
        above += share_at_or_above(q["share"])
    library = f", library {statistics.median(lib):.3f}" if lib else ""
    print(f"{a.report}: {len(pairs)} pairs; neighbour over ragged time, median: {a.variant} {statistics.median(mine):.3f}"
          f"{library}; {a.variant} at or above the library on {above} of {len(pairs)} neighbours")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("reports", nargs="+", metavar="REPORT")
    ls.add_argument("--variant", default="gemm_auto")
    ls.add_argument("--worst", type=int, default=16)
    cs = sub.add_parser("cost")
    cs.add_argument("report", metavar="REPORT")
    cs.add_argument("--variant", default="gemm_auto")
    a = ap.parse_args()
    return listing(a) if a.what == "list" else cost(a)


if __name__ == "__main__":
    sys.exit(main())
