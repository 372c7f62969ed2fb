#!/usr/bin/env python3
"""Rows of tests/fixtures/gemm_auto_measured.tsv from compare reports of gemm_auto's stage.

For each tiled product of the reports (M, N > 1, K > 4: the shapes gemm_auto's shortlist decides),
the gemm_auto steps measured as rows of the gemm list, by the names the host suite's `labels`
gives them (handwritten/gemm/gemm_auto_steps.hpp's names; the list's gemm10 split row is that
step's /fill, gemm13's split row its /split), and which of them ran within 3% of the fastest.
Products where gemm_auto's own row ran more than 3% faster than every one of them are left out:
it took a split of the time model's that no list row measures, so the file cannot name it. A
REPORT is read as scripts/fit_gemm_model.py reads it (scripts/gemm_reports.py: COMMIT:PATH too).

usage: scripts/gemm_auto_fixture.py GPU REPORT ...   (rows on stdout, a count on stderr)
"""
import sys

from gemm_reports import auto_steps, gemm_medians, tiled

STEPS = set(auto_steps())
SPLIT_ROWS = {  # a list row that runs a step split by the rule the host suite's labels name
    "gemm10_splitk_64x64x16_w32x32_t4x8_s4": "gemm10_swizzled_64x64x16_w32x32_t4x8_s4/fill",
    "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at_splitk":
        "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at/split",
}


def label(variant):
    if variant in SPLIT_ROWS:
        return SPLIT_ROWS[variant]
    return variant if variant in STEPS else None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    gpu, reports = sys.argv[1], sys.argv[2:]
    rows, left_out = [], 0
    for (dtype, M, N, K), times in sorted(gemm_medians(reports).items()):
        if not tiled(M, N, K) or "gemm_auto" not in times:
            continue
        steps = {label(v): t for v, t in times.items() if label(v)}
        if not steps:
            continue
        fastest = min(steps.values())
        if times["gemm_auto"] * 1.03 < fastest:
            left_out += 1
            continue
        within = sorted(s for s, t in steps.items() if t <= fastest * 1.03)
        rows.append(f"{gpu}\t{dtype}\t{M}\t{N}\t{K}\t{' '.join(within)}")
    print("\n".join(rows))
    print(f"{len(rows)} products, {left_out} left out (gemm_auto ran a split no list row measures)", file=sys.stderr)


if __name__ == "__main__":
    main()
