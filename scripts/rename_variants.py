#!/usr/bin/env python3
"""Rewrite a compare report's variant names through compare/diff/config-renames.json (the tuned
configurations renamed in 2026-11, when names began to spell warp and thread tiles), so that
`compare diff OLD NEW` pairs an older run's rows with a newer run's.

    scripts/rename_variants.py OLD.json[.gz] OUT.json [--map compare/diff/config-renames.json]
"""
import argparse
import gzip
import json
import os
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report")
    p.add_argument("out")
    p.add_argument("--map", default=os.path.join(os.path.dirname(__file__), "..", "compare", "diff", "config-renames.json"))
    a = p.parse_args()
    try:
        opener = gzip.open if a.report.endswith(".gz") else open
        with opener(a.report, "rt") as f:
            report = json.load(f)
        with open(a.map) as f:
            renames = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"rename_variants.py: {e}")
    n = 0
    for row in report.get("results", []):
        new = renames.get(row.get("variant"))
        if new:
            row["variant"], n = new, n + 1
    with open(a.out, "w") as f:
        json.dump(report, f)
    print(f"rename_variants.py: {n} rows renamed", file=sys.stderr)


if __name__ == "__main__":
    main()
