#!/usr/bin/env python3
"""Puts the documents' published timings beside the ratios measured by `compare`.

usage: scripts/doc_tables.py RESULT.json [RESULT.json ...] > table.md

The documents ran on other GPUs (K40c, GeForce 9650M, ...), so absolute times are not
comparable; what carries over is each step's speed-up over the document's own baseline.
"""
import json
import sys

# (family, dtype, shape, [(variant, doc_ms), ...], baseline variant, title)
DOC_TABLES = [
    ("gemm", "float", "1000x1000x1000", [("gemm_global_16x16", 2484.06), ("gemm_smem_16x16", 133.47)],
     "000 table 3.1: matrix product, global vs shared memory (doc: N=1000 class lab GPU)"),
    ("aat", "float", "1000x1000", [("aat_smem_unpadded", 551.73), ("aat_smem_padded", 120.59)],
     "000 table 3.2: A*A^T, ats[16][16] vs ats[16][17] (doc)"),
    ("gemm", "float", "2048x2048x2048",
     [("gemm_global_32x32", 134), ("gemm_smem1_transposed", 150), ("gemm_smem2_padded", 56),
      ("gemm_smem3_natural", 46), ("gemm_smem4_ilp2", 33), ("gemm_smem5_ilp4", 26)],
     "001 comparison table, float (doc: Tesla K40c, N=2048)"),
    ("gemm", "double", "2048x2048x2048",
     [("gemm_global_32x32", 220), ("gemm_smem1_transposed", 476), ("gemm_smem2_padded", 62),
      ("gemm_smem3_natural", 80), ("gemm_smem4_ilp2", 50), ("gemm_smem5_ilp4", 45.5)],
     "001 comparison table, double (doc: Tesla K40c, N=2048; SMEM-2 figure in 8-byte bank mode)"),
    ("reduce", "int", "n=268435456",
     [("reduce1_interleaved_divergent", 19.09), ("reduce2_interleaved_strided_index", 11.91),
      ("reduce3_sequential_addressing", 10.62), ("reduce4_first_add_during_load", 9.10),
      ("reduce5_unroll_last_warp", 8.67)],
     "000 table 3.3: reduction ladder, int (doc: size not stated)"),
    ("reduce", "float", "n=268435456",
     [("reduce1_interleaved_divergent", 19.2), ("reduce2_interleaved_strided_index", 10.6),
      ("reduce3_sequential_addressing", 8.3), ("reduce5_unroll_last_warp", 5.7)],
     "001 reduction table, float (doc: GeForce 9650M, CC 1.1; its 'reduce4' is the unrolled last warp = reduce5 here)"),
]


def main(paths):
    rows = {}
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for r in d["results"]:
            if "timing_ms" in r:
                rows[(r["family"], r["dtype"], r["shape"], r["variant"])] = r["timing_ms"]["median"]
    print("| document table | variant | doc time | doc speed-up vs first | measured time (H100) | measured speed-up vs first |")
    print("|---|---|--:|--:|--:|--:|")
    for fam, dt, shape, entries, title in DOC_TABLES:
        base_doc = entries[0][1]
        base_key = (fam, dt, shape, entries[0][0])
        base = rows.get(base_key)
        for i, (variant, doc_ms) in enumerate(entries):
            got = rows.get((fam, dt, shape, variant))
            got_s = f"{got:.3f} ms" if got is not None else "not run"
            ratio = f"{base / got:.2f}x" if got and base else "-"
            print(f"| {title if i == 0 else ''} | `{variant}` | {doc_ms} ms | {base_doc / doc_ms:.2f}x | {got_s} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
