#!/usr/bin/env python3
"""Fits gemm_auto's time model (handwritten/gemm/gemm_auto_plan.hpp, step_model_us) to compare
reports, and writes one GPU's data file (handwritten/gemm/gemm_auto_model_<gpu>.hpp).

For each modelled step, the constants of step_model_us that minimise the RMS of
log(model / measured median) over every product of the reports where that step ran, the overlap
tried from {1, 2, 3, 4, 6, 8}: on its 16-byte path (products whose N is a multiple of 4) for the
steps that have one, on every product for the others; gemm9's 64² and k8 tiles also on their
element path (N not a multiple of 4), where gemm9 runs differently enough to need its own row.

usage: scripts/fit_gemm_model.py [--gpu NAME --sms N --out FILE] [--fixed ROW]... REPORT ...
(needs numpy and scipy)
A REPORT is a compare report (.json or .json.gz), or COMMIT:PATH for one as it was at a commit (read
with git show, so a data file can name inputs that have since been regenerated). Without --out it
prints the rows and their RMS errors. The file written names this script, its inputs and the
commit it ran at; the GPU's SM count is its multiprocessors (132 on the H100 SXM and the H200).
--fixed "STEP PATH OVERLAP LAUNCH BLOCK KTILE CO PER_MB" puts a row in the file as given instead of
fitting it (a row whose inputs are no longer at hand); the file says which rows were fixed, and
--note adds a line to its header (why).
"""
import argparse
import math
import re
import shlex
import subprocess
import sys

import numpy as np
from scipy.optimize import least_squares

from gemm_reports import auto_steps, gemm_medians, tiled

# step: (16-byte path required, also fitted on its element path); its type is the step table's,
# its block tile BM x BN x BK the one its name spells
STEPS = {
    "gemm9_pipelined_64x64x16_w32x32_t4x8_s4": (True, True),
    "gemm10_swizzled_64x64x16_w32x32_t4x8_s4": (False, False),
    # fitted once a report holds them; until then gemm_auto borrows the 64² tile's row (kModelLike)
    "gemm10_swizzled_32x128x16_w32x32_t4x8_s4": (False, False),
    "gemm10_swizzled_128x32x16_w32x32_t4x8_s4": (False, False),
    # gemm10's 32 x 64 x 8 and 64 x 128 x 8 (C staged, where C's rows take no 16-byte stores):
    # fitted once a report holds them; until then tune measures them wherever they are candidates
    "gemm10_swizzled_32x64x8_w32x32_t4x8_s3": (False, False),
    "gemm10_swizzled_64x128x8_w64x32_t8x8_s3": (False, False),
    # gemm9's few-wave k8 tiles: on both paths, as its 64² tile
    "gemm9_pipelined_64x64x8_w16x64_t4x8_s3": (True, True),
    "gemm9_pipelined_32x128x8_w16x64_t4x8_s3": (True, True),
    "gemm9_pipelined_128x64x8_w32x64_t8x8_s3": (True, True),
    "gemm9_pipelined_64x128x8_w32x64_t8x8_s3": (True, True),
    "gemm9_pipelined_32x64x8_w16x64_t4x8_s3": (True, True),
    "gemm9_pipelined_128x128x8_w64x32_t8x8_s3": (True, False),
    "gemm9_pipelined_128x128x16_w64x32_t8x8_s3": (True, False),
    "gemm10_swizzled_128x128x16_w64x32_t8x8_s3": (False, False),
    "gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4": (True, False),
    "gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at": (True, False),
    "gemm11_dmma_32x32x16_w16x16_s4_k8": (False, False),
    "gemm11_dmma_64x64x16_w32x32_s4_k8": (False, False),
    "gemm11_dmma_64x64x16_w32x32_s4_k8_pf": (False, False),
    # fitted once a report holds them; until then gemm_auto borrows the 64² _pf tile's row (kModelLike)
    "gemm11_dmma_32x128x16_w32x32_s4_k8_pf": (False, False),
    "gemm11_dmma_128x32x16_w32x32_s4_k8_pf": (False, False),
    # cuBLAS's few-wave DMMA tiles: nothing to borrow (no step does their block work), so tune
    # measures them wherever a GPU's data has no row for them
    "gemm11_dmma_64x128x16_w32x64_s3_k8": (False, False),
    "gemm11_dmma_64x128x16_w32x64_s3_k4_pf": (False, False),
    "gemm11_dmma_64x64x32_w32x32_s3_k16_pf": (False, False),
    "gemm11_dmma_32x64x32_w16x32_s3_k16_pf": (False, False),
    "gemm11_dmma_128x128x16_w64x32_s4_k4_pf": (False, False),
}


def model(p, M, N, K, bm, bn, bk, overlap, elem, sms):  # gemm_plan::step_model_us, one slice
    launch, block, ktile, co, per_mb = p
    busiest = math.ceil(math.ceil(M / bm) * math.ceil(N / bn) / sms)
    group = lambda n: 1 + co * (n - 1) if n else 0.0
    load = (busiest // overlap) * group(overlap) + group(busiest % overlap)
    mb = (M * N + M * K * math.ceil(N / bn) + K * N * math.ceil(M / bm)) * elem / 1e6
    return launch + load * (block + math.ceil(K / bk) * ktile) + per_mb * mb


def fit(pts, bm, bn, bk, elem, sms):
    best = None
    for overlap in (1, 2, 3, 4, 6, 8):
        res = lambda p: [math.log(model(p, M, N, K, bm, bn, bk, overlap, elem, sms) / t) for M, N, K, t in pts]
        sol = least_squares(res, [3, 1, 0.3, 0.5, 0.3], bounds=([0] * 5, [50, 100, 100, 1, 10]))
        rms = float(np.sqrt(np.mean(np.square(sol.fun))))
        if best is None or rms < best[0]:
            best = (rms, overlap, sol.x)
    return best


def tile(name):
    """The block tile (BM, BN, BK) a step's name spells ("..._64x128x16_...")."""
    return tuple(int(x) for x in re.search(r"_(\d+)x(\d+)x(\d+)_", name).groups())


def rows(files, sms):
    times = gemm_medians(files)
    types = auto_steps()
    out = []
    for name, (vec, element) in STEPS.items():
        dt, (bm, bn, bk) = types[name], tile(name)
        for path in ("vec", "element") if element else ("vec",):
            want = (lambda N: N % 4 == 0) if (path == "vec" and vec) else (lambda N: N % 4 != 0) if path == "element" \
                else (lambda N: True)
            pts = [(M, N, K, v[name] * 1000) for (t, M, N, K), v in times.items()
                   if t == dt and name in v and tiled(M, N, K) and want(N)]
            if not pts:
                continue
            rms, overlap, p = fit(pts, bm, bn, bk, 4 if dt == "float" else 8, sms)
            out.append((name, path, overlap, p, len(pts), rms))
    return out


def write(path, gpu, sms, files, fitted, fixed, notes):
    """The data file: its provenance (this script, its inputs, the commit it ran at, the command)
    as strings of the GpuModel, which the host suite and a reader can print; comments without
    commit ids (scripts/check_code_comments.py)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    command = " ".join(shlex.quote(x) for x in ["scripts/fit_gemm_model.py"] + sys.argv[1:])
    cstr = lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = [f"// gemm_auto's time model on the {gpu} (gemm_auto_model.hpp's rows; step_model_us's constants).",
             "//",
             "// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs",
             "// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the",
             "// command that regenerates this file. Do not edit it by hand."]
    lines += [f"// {n}" for n in notes]
    lines += ["#pragma once", "", '#include "handwritten/gemm/gemm_auto_model.hpp"', "",
              "namespace kl::gemm_plan {", "",
              f"inline constexpr std::string_view kProvenance{gpu} =",
              "    " + cstr(f"scripts/fit_gemm_model.py run at {commit or '?'}, {sms} SMs; inputs: ")]
    lines += ["    " + cstr(f + ("; " if i + 1 < len(files) else "")) for i, f in enumerate(files)]
    for row in fixed:
        lines.append("    " + cstr(f"; fixed (given, not fitted): {row}"))
    lines[-1] += ";"
    lines += [f"inline constexpr std::string_view kCommand{gpu} =", "    " + cstr(command) + ";", "",
              f"inline constexpr ModelRow kModelRows{gpu}[] = {{",
              "    // step, path, overlap, launch µs, block µs, k tile µs, co-resident share, µs per MB"]
    for name, p_, overlap, p, n, rms in fitted:
        note = "" if n else "  // fixed"
        lines.append(f'    {{"{name}", Path::{p_}, {overlap}, {p[0]:.2f}, {p[1]:.3f}, {p[2]:.3f}, {p[3]:.2f}, {p[4]:.3f}}},{note}')
    lines += ["};",
              f'inline constexpr GpuModel kModel{gpu}{{"{gpu}", kModelRows{gpu}, sizeof(kModelRows{gpu}) / '
              f"sizeof(kModelRows{gpu}[0]), kProvenance{gpu}, kCommand{gpu}}};", "", "}  // namespace kl::gemm_plan", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {path} ({len(fitted)} rows)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--gpu", default="H100")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--out")
    ap.add_argument("--fixed", action="append", default=[])
    ap.add_argument("--note", action="append", default=[], help="a line for the file's header (why a row is fixed)")
    a = ap.parse_args()
    fitted = rows(a.reports, a.sms)
    for row in a.fixed:  # replaces the fitted row of the same step and path
        f = row.split()
        name, path, overlap, p = f[0], f[1], int(f[2]), [float(x) for x in f[3:8]]
        at = [i for i, r in enumerate(fitted) if r[:2] == (name, path)]
        if at:
            fitted[at[0]] = (name, path, overlap, p, 0, 0.0)
        else:
            fitted.append((name, path, overlap, p, 0, 0.0))
    for name, path, overlap, p, n, rms in fitted:
        print(f"{name} {path}: {{{overlap}, {p[0]:.2f}, {p[1]:.3f}, {p[2]:.3f}, {p[3]:.2f}, {p[4]:.3f}}}"
              + (f"  ({n} products, RMS {rms * 100:.1f}%)" if n else "  (fixed)"))
    if a.out:
        write(a.out, a.gpu, a.sms, a.reports, fitted, a.fixed, a.note)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[8] + "\n" + __doc__.strip().splitlines()[9])
    main()
