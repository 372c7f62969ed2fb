#!/usr/bin/env python3
"""How close a variant (by default gemm_auto) comes to the library over a set of products, in the
terms the product targets are stated in: on how many products it is at or above the library, the
median and the lowest share, and which products are below.

usage: scripts/gemm_auto_summary.py [--variant NAME] [--worst N] [--ahead PCT] [--profile-list]
                                    [--require-share F] [--require-median F] [--require-floor F]
                                    REPORT [REPORT ...]

REPORT: a compare report (.json or .json.gz), or COMMIT:PATH for one as it was at a commit.

For each report and each (family, type) of its gemm and aat rows: the variant's rows that ran and
have a share of the library (`metric.vs_library`, the library's time over the row's), one summary
line, then the products below 100%, lowest first (at most N with --worst), each with the fastest
other hand-written row there. A product is "at or above" at a share of 1.0 or more, as the
reports print it to one decimal (99.96% reads 100.0% and counts); the median and the lowest
share are held against their targets the same way.

--ahead PCT also lists, after them, the products where another hand-written row of the report ran
more than PCT per cent faster than the variant (its share over the variant's above 1 + PCT/100),
each with that row: for gemm_auto, where its choice missed a faster step the report measured.

--profile-list prints, instead, one line for scripts/profile.py: the products below 100% (lowest
first, at most N with --worst) as compare's -s list, a tab, then the fastest other hand-written row
at each (each name once) and the library's row as its -v list; an empty line when none is below.
It takes one report of one type (scripts/device.sh profile_behind: the rules' report per type).

--require-share F (the fraction of the products at or above, as A/B or a decimal: 38/42),
--require-median F and --require-floor F (shares of the library's rate, e.g. 1.0 and 0.95): each
(report, type) must meet every one given; a miss is named on stderr and the exit status is 1. A
file that is not a report, or a report without the variant's rows, is one line on stderr and
exit status 1.
"""
import argparse
import statistics
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gemm_reports import read  # noqa: E402


def meets(v, target):
    # The reports print shares to one decimal; a share that prints as the target meets it.
    return round(v * 100, 1) >= round(target * 100, 1)


def share_at_or_above(v):
    return meets(v, 1.0)


def groups(report, variant):
    """{(family, dtype): {shape: (share, best other row name, its share)}}."""
    rows = {}
    for r in report["results"]:
        if r.get("family") not in ("gemm", "aat") or r.get("status") != "ok":
            continue
        share = (r.get("metric") or {}).get("vs_library")
        if share is None:
            continue
        rows.setdefault((r["family"], r["dtype"], r["shape"]), []).append((r.get("variant", ""), r.get("source"), share))
    out = {}
    for (family, dtype, shape), rs in rows.items():
        mine = [s for name, _, s in rs if name == variant]
        if not mine:
            continue
        others = [(s, name) for name, source, s in rs if name != variant and source == "handwritten"]
        best = max(others, default=(None, ""))
        out.setdefault((family, dtype), {})[shape] = (mine[0], best[1], best[0])
    return out


def library_of(report):
    """The library row's name the shares are taken against (`metric.library`), or None."""
    return next(((r.get("metric") or {}).get("library") for r in report["results"]
                 if (r.get("metric") or {}).get("library")), None)


def profile_list(spec, report, found, worst):
    """The -s and -v lists of the products below the library, for scripts/profile.py."""
    if len(found) != 1:
        sys.exit(f"{spec}: --profile-list takes a report of one family and type, not {len(found)}")
    (per,) = found.values()
    below = sorted((v for v in per.items() if not share_at_or_above(v[1][0])), key=lambda kv: kv[1][0])[:worst]
    steps = list(dict.fromkeys(best for _, (_, best, _) in below if best))
    library = library_of(report)
    return ",".join(shape for shape, _ in below) + "\t" + ",".join(steps + ([library] if below and library else []))


def pct(v):
    return f"{v * 100:.1f}%"


def fraction(text):
    try:
        f = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a fraction: {text!r} (write A/B or a decimal)")
    if not 0 <= f <= 1:
        raise argparse.ArgumentTypeError(f"not between 0 and 1: {text!r}")
    return f, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+", metavar="REPORT")
    ap.add_argument("--variant", default="gemm_auto")
    ap.add_argument("--worst", type=int, default=None, help="list at most N products below 100%%")
    ap.add_argument("--ahead", type=float, default=None, metavar="PCT",
                    help="list the products where another hand-written row is more than PCT%% faster")
    ap.add_argument("--profile-list", action="store_true",
                    help="print the products below (as -s) and their fastest other rows and the library (as -v)")
    ap.add_argument("--require-share", type=fraction, default=None, help="e.g. 38/42")
    ap.add_argument("--require-median", type=float, default=None)
    ap.add_argument("--require-floor", type=float, default=None)
    a = ap.parse_args()

    missed = []
    if a.profile_list and len(a.reports) != 1:
        ap.error("--profile-list takes one report")
    for spec in a.reports:
        report = read(spec)
        found = groups(report, a.variant)
        if not found:
            sys.exit(f"{spec}: no gemm or aat rows of {a.variant} with a share of the library")
        if a.profile_list:
            print(profile_list(spec, report, found, a.worst))
            return 0
        for (family, dtype), per in sorted(found.items()):
            shares = [s for s, _, _ in per.values()]
            above = sum(share_at_or_above(s) for s in shares)
            low_shape = min(per, key=lambda k: per[k][0])
            median, lowest = statistics.median(shares), per[low_shape][0]
            below95 = sum(s < 0.95 for s in shares)
            print(f"{spec}  {family} {dtype}: {a.variant} at or above the library on {above} of {len(shares)}, "
                  f"median {pct(median)}, lowest {pct(lowest)} ({low_shape}), {below95} below 95%")
            below = sorted((v for v in per.items() if not share_at_or_above(v[1][0])), key=lambda kv: kv[1][0])
            for shape, (s, best, best_share) in below[: a.worst] if a.worst is not None else below:
                other = f"fastest other: {best} {pct(best_share)}" if best else "no other hand-written row"
                print(f"  {shape:>18} {pct(s):>7}  ({other})")
            if a.ahead is not None:
                ahead = sorted(((shape, s, best, bs) for shape, (s, best, bs) in per.items()
                                if best and bs / s > 1 + a.ahead / 100), key=lambda t: t[3] / t[1], reverse=True)
                print(f"  {len(ahead)} of {len(shares)} with another row more than {a.ahead:g}% faster")
                for shape, s, best, bs in ahead:
                    print(f"  {shape:>18} {pct(s):>7}  ({best} {pct(bs)}, {pct(bs / s - 1)} faster)")
            tag = f"{spec} {family} {dtype}"
            if a.require_share is not None and Fraction(above, len(shares)) < a.require_share[0]:
                missed.append(f"{tag}: {above} of {len(shares)} at or above, fewer than {a.require_share[1]} of them")
            if a.require_median is not None and not meets(median, a.require_median):
                missed.append(f"{tag}: median {pct(median)}, below {pct(a.require_median)}")
            if a.require_floor is not None and not meets(lowest, a.require_floor):
                missed.append(f"{tag}: lowest {pct(lowest)} ({low_shape}), below {pct(a.require_floor)}")
    for m in missed:
        print(f"gemm_auto_summary.py: missed: {m}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
