#!/usr/bin/env python3
"""Prints a sweep of odd matrix-product shapes for compare -s (docs/sgemm-ladder.md, "gemm_auto:
measured, not ruled"): N shapes cycling through six classes (small, tall, wide, thin-K,
near-square, mid-size), sizes drawn log-uniform per class, at most 3e11 flops each, half of them
with N rounded down to a multiple of 4 (the 16-byte paths).

usage: scripts/gemm_sweep.py SEED N      (the committed runs: seeds 401, 402, 403; N = 42)
"""
import math
import random
import sys


def sweep(seed, n):
    rng = random.Random(seed)
    out = []

    def lu(a, b):
        return int(round(math.exp(rng.uniform(math.log(a), math.log(b)))))

    kinds = ["small", "tall", "wide", "thin", "square", "mid"]
    while len(out) < n:
        k = kinds[len(out) % len(kinds)]
        if k == "small":
            M, N, K = lu(17, 900), lu(17, 900), lu(5, 1500)
        elif k == "tall":
            M, N, K = lu(3000, 16000), lu(24, 400), lu(16, 2000)
        elif k == "wide":
            M, N, K = lu(24, 400), lu(3000, 16000), lu(16, 2000)
        elif k == "thin":
            M, N, K = lu(500, 8192), lu(500, 8192), lu(5, 64)
        elif k == "square":
            s = lu(300, 6000)
            M, N, K = s + rng.randint(-3, 3), s + rng.randint(-3, 3), lu(64, s)
        else:
            M, N, K = lu(500, 4000), lu(500, 4000), lu(65, 600)
        if 2 * M * N * K > 3e11:
            continue
        if rng.random() < 0.5:
            N = max(4, N // 4 * 4)
        out.append(f"{M}x{N}x{K}")
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    print(",".join(sweep(int(sys.argv[1]), int(sys.argv[2]))))
