#!/usr/bin/env python3
"""Fits gemm_auto's time model (handwritten/gemm/gemm_plan.hpp, StepModel and model_of) to compare
reports: for each step, the constants of gemm_plan::step_model_us that minimise the RMS of
log(model / measured median) over every product of the reports where that step ran, the overlap
tried from {1, 2, 3, 4, 6, 8}. Prints one model_of line per step and its RMS error.

usage: scripts/fit_gemm_model.py REPORT.json[.gz] ...   (needs numpy and scipy)
The committed constants were fitted on reports that are now in main's history
(`git show 83a0d70:journal/h100/934d557/gemm_auto_rules.json.gz | gunzip`, the same for
journal/h100/80d4380/gemm_auto_sweep_a.json.gz, and the H100's shapes and default runs of that
time); gemm9 64²'s element-path constants on products with N not a multiple of 4 of those and of
the two later sweeps (by hand: the script fits the 16-byte path only). The model only shortlists;
tune chooses (docs/sgemm-ladder.md, "gemm_auto's rules"). To refit on the current runs:
scripts/fit_gemm_model.py results/<gpu>/gemm_auto_*.json.gz results/<gpu>/default.json.gz.
"""
import gzip
import json
import math
import sys

import numpy as np
from scipy.optimize import least_squares

SMS = 132
STEPS = {  # variant: (type, bm, bn, bk, 16-byte path required)
    "gemm9_pipelined_64x64x16_w32x32_t4x8_s4": ("float", 64, 64, 16, True),
    "gemm10_swizzled_64x64x16_w32x32_t4x8_s4": ("float", 64, 64, 16, False),
    "gemm9_pipelined_128x128x8_w64x32_t8x8_s3": ("float", 128, 128, 8, True),
    "gemm9_pipelined_128x128x16_w64x32_t8x8_s3": ("float", 128, 128, 16, True),
    "gemm10_swizzled_128x128x16_w64x32_t8x8_s3": ("float", 128, 128, 16, False),
    "gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4": ("float", 256, 128, 16, True),
    "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at": ("float", 128, 256, 32, True),
    "gemm11_dmma_32x32x16_w16x16_s4_k8": ("double", 32, 32, 16, False),
    "gemm11_dmma_64x64x16_w32x32_s4_k8": ("double", 64, 64, 16, False),
    "gemm11_dmma_64x64x16_w32x32_s4_k8_pf": ("double", 64, 64, 16, False),
    "gemm11_dmma_128x128x16_w64x32_s4_k4_pf": ("double", 128, 128, 16, False),
}


def model(p, M, N, K, bm, bn, bk, overlap, elem):  # gemm_plan::step_model_us, one slice
    launch, block, ktile, co, per_mb = p
    busiest = math.ceil(math.ceil(M / bm) * math.ceil(N / bn) / SMS)
    group = lambda n: 1 + co * (n - 1) if n else 0.0
    load = (busiest // overlap) * group(overlap) + group(busiest % overlap)
    mb = (M * N + M * K * math.ceil(N / bn) + K * N * math.ceil(M / bm)) * elem / 1e6
    return launch + load * (block + math.ceil(K / bk) * ktile) + per_mb * mb


def main(files):
    times = {}
    for f in files:
        d = json.load(gzip.open(f) if f.endswith(".gz") else open(f))
        for r in d["results"]:
            if r.get("family") == "gemm" and r.get("status") == "ok":
                times.setdefault((r["dtype"], *r["dims"]), {})[r["variant"]] = r["timing_ms"]["median"] * 1000
    for name, (dt, bm, bn, bk, vec) in STEPS.items():
        pts = [(M, N, K, v[name]) for (t, M, N, K), v in times.items()
               if t == dt and name in v and K > 4 and M > 1 and N > 1 and (not vec or N % 4 == 0)]
        if not pts:
            continue
        elem = 4 if dt == "float" else 8
        best = None
        for overlap in (1, 2, 3, 4, 6, 8):
            res = lambda p: [math.log(model(p, M, N, K, bm, bn, bk, overlap, elem) / t) for M, N, K, t in pts]
            sol = least_squares(res, [3, 1, 0.3, 0.5, 0.3], bounds=([0] * 5, [50, 100, 100, 1, 10]))
            rms = float(np.sqrt(np.mean(np.square(sol.fun))))
            if best is None or rms < best[0]:
                best = (rms, overlap, sol.x)
        rms, overlap, p = best
        print(f"{name}: {{{bm}, {bn}, {bk}, {overlap}, {p[0]:.2f}, {p[1]:.3f}, {p[2]:.3f}, {p[3]:.2f}, {p[4]:.3f}}}"
              f"  ({len(pts)} products, RMS {rms * 100:.1f}%)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-4])
    main(sys.argv[1:])
