#!/usr/bin/env python3
"""Nsight Compute metrics per variant: the few numbers that explain a row of `compare`.

usage:
  scripts/profile.py [options] -- COMPARE_ARGS...     profile what `compare COMPARE_ARGS` selects
  scripts/profile.py [options] --from RESULT.json     profile the rows of an earlier run

For every (problem, variant) it runs, under `ncu`, one validation launch of that variant alone
(`compare ... -v NAME --skip-library --validate-only --no-exact-check --no-recheck`), so every kernel ncu sees
belongs to it (the runner's own kernels, the fp64 reference and the poison fill, are dropped by
name), then aggregates the variant's kernels (duration-weighted rates, summed counts):

  time        gpu__time_duration (all the variant's kernels)
  DRAM        achieved DRAM bandwidth (GB/s) and % of peak
  L2 hit      lts__t_sector_hit_rate
  smem confl  shared-memory bank conflicts, loads / stores (l1tex__data_bank_conflicts_...)
  smem B/wf   shared-memory bytes per wavefront, loads / stores (and all accesses), 128 = a
              conflict-free warp of 4-byte accesses
  gld B/sec   global load efficiency: bytes requested per 32-byte sector fetched (32 = fully used)
  occupancy   achieved occupancy (sm__warps_active % of peak)
  top stall   the largest warp-stall reason per issued instruction
  kernel      the variant's longest kernel, by name (a library's says which of its kernels it ran)

With --compute, also what explains a compute-bound kernel (scripts/profile-sgemm.sh uses it):
  regs        registers per thread (of the variant's longest kernel)
  issue %     sm__issue_active, % of peak (an instruction issued in that share of cycles)
  FMA / FP64 / DMMA pipe %   the FP32 FMA, FP64 and FP64-tensor pipes' active cycles, % of peak
  FFMA / DFMA per instr      thread FFMAs (DFMAs) / 32 per warp instruction issued: the share of
              the instruction stream that is the product's own arithmetic

Writes OUT/NAME.md (a table per problem) and OUT/NAME.json: the rows of the run with a "profile"
object added to each. Clocks are left as they are (--clock-control none). Exit 3 with one line
when ncu is not installed (or cannot read the counters)."""
import argparse
import csv
import fnmatch
import io
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RUNNER_KERNELS = re.compile(r"product_fp64|fill_kernel|read_kernel|mirror_lower_to_upper_never")

STALLS = ["barrier", "long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "math_pipe_throttle",
          "not_selected", "wait", "dispatch_stall", "membar", "drain", "branch_resolving", "no_instruction",
          "imc_miss", "tex_throttle", "sleeping", "misc"]
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"

METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes.sum.per_second",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sector_hit_rate.pct",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_data_bytes_mem_shared_op_ld.sum",
    "smsp__sass_data_bytes_mem_shared_op_st.sum",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
    "smsp__sass_average_data_bytes_per_wavefront_mem_shared.ratio",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
] + [STALL_METRIC.format(s) for s in STALLS]

COMPUTE_METRICS = [
    "launch__registers_per_thread",
    "sm__issue_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__inst_executed.sum",
]


def fail(msg, code=3):
    print(f"profile: {msg}", file=sys.stderr)
    sys.exit(code)


def find_ncu():
    forced = os.environ.get("KL_NCU")  # an ncu elsewhere (or, in the tests, a stand-in)
    if forced:
        if os.access(forced, os.X_OK):
            return forced
        fail(f"KL_NCU={forced} is not an executable")
    for cand in [shutil.which("ncu"), "/usr/local/cuda/bin/ncu"]:
        if cand and os.access(cand, os.X_OK):
            return cand
    fail("Nsight Compute (ncu) not found on PATH or in /usr/local/cuda/bin; install Nsight Compute to profile")


def available_metrics(ncu, wanted):
    """The wanted metrics this GPU and ncu know (ncu rejects a whole run for one unknown name)."""
    out = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True)
    if out.returncode != 0:
        return wanted, []  # cannot ask: try them all
    known = set(re.findall(r'^"?([a-z0-9_]+__[a-z0-9_]+)', out.stdout, re.M))
    if not known:
        return wanted, []  # an unexpected listing: try them all
    keep, drop = [], []
    for m in wanted:
        (keep if m.split(".")[0] in known else drop).append(m)
    return keep, drop


def num(row, key):
    v = (row.get(key) or "").replace(",", "")
    try:
        return float(v)
    except ValueError:
        return None


def short_kernel_name(name):
    """A kernel's name as the table shows it: without "void " and its parameter list, the template
    arguments kept (a library's tile and stage counts are in them, or in the name itself)."""
    name = name[5:] if name.startswith("void ") else name
    depth = 0
    for i, c in enumerate(name):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "(" and depth == 0:
            return name[:i]
    return name


def aggregate(kernels):
    """One variant's kernels (ncu CSV rows) as one set of metrics."""
    if not kernels:
        return None
    dur = [num(k, "gpu__time_duration.sum") or 0.0 for k in kernels]
    total = sum(dur) or 1.0
    longest = max(range(len(kernels)), key=lambda i: dur[i])

    def weighted(m):
        vals = [(num(k, m), d) for k, d in zip(kernels, dur)]
        vals = [(v, d) for v, d in vals if v is not None]
        return sum(v * d for v, d in vals) / sum(d for _, d in vals) if vals and sum(d for _, d in vals) else None

    def summed(m):
        vals = [num(k, m) for k in kernels]
        vals = [v for v in vals if v is not None]
        return sum(vals) if vals else None

    def ratio(a, b):
        x, y = summed(a), summed(b)
        return x / y if x is not None and y else None

    p = {
        "kernels": [k.get("Kernel Name", "") for k in kernels],
        "longest_kernel": short_kernel_name(kernels[longest].get("Kernel Name", "")),
        "time_us": total / 1e3,
        "dram_gbps": (weighted("dram__bytes.sum.per_second") or 0) / 1e9 or None,
        "dram_pct_of_peak": weighted("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
        "l2_hit_pct": weighted("lts__t_sector_hit_rate.pct"),
        "smem_ld_bank_conflicts": summed("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        "smem_st_bank_conflicts": summed("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        "smem_ld_bytes_per_wavefront": ratio("smsp__sass_data_bytes_mem_shared_op_ld.sum",
                                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
        "smem_st_bytes_per_wavefront": ratio("smsp__sass_data_bytes_mem_shared_op_st.sum",
                                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
        # Bytes the warps asked for per 32-byte sector moved (l1tex__t_bytes / t_sectors would
        # count whole sectors and always read 32).
        "global_ld_bytes_per_sector": weighted("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"),
        # ... and written per sector written: 8 where a warp's 4-byte stores land 16 bytes apart
        # (docs/sgemm-ladder.md, "gemm9's stores on ragged rows"), 32 for whole lines.
        "global_st_bytes_per_sector": weighted("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"),
        "smem_bytes_per_wavefront": weighted("smsp__sass_average_data_bytes_per_wavefront_mem_shared.ratio"),
        "achieved_occupancy_pct": weighted("sm__warps_active.avg.pct_of_peak_sustained_active"),
    }
    # --compute's fields, present only where their counters were collected.
    compute = {
        "registers_per_thread": num(kernels[longest], "launch__registers_per_thread"),
        "issue_active_pct": weighted("sm__issue_active.avg.pct_of_peak_sustained_elapsed"),
        "fma_pipe_pct": weighted("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
        "fp64_pipe_pct": weighted("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"),
        "dmma_pipe_pct": weighted("sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active"),
    }
    inst = summed("smsp__inst_executed.sum")
    for op in ("ffma", "dfma"):
        n = summed(f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum")
        compute[f"{op}_per_instruction"] = n / 32 / inst if n is not None and inst else None
    p.update({k: v for k, v in compute.items() if v is not None})
    stalls = {s: weighted(STALL_METRIC.format(s)) for s in STALLS}
    stalls = {s: v for s, v in stalls.items() if v is not None}
    if stalls:
        top = max(stalls, key=stalls.get)
        p["top_stall"] = top
        p["top_stall_per_issue"] = stalls[top]
        p["stalls_per_issue"] = stalls
    return p


def profile_variant(ncu, metrics, compare, row, extra):
    """ncu over one validation launch of row's variant; returns (metrics, error)."""
    args = [compare, "-f", row["family"], "-t", row["dtype"], "-s", "x".join(str(d) for d in row["dims"]),
            "-v", row["variant"], "--skip-library", "--validate-only", "--no-exact-check", "--no-recheck", "--no-files", "-q"]
    for name, value in axis_items(row):
        args += ["--axis", f"{name}={value}"]
    cmd = [ncu, "--clock-control", "none", "--csv", "--page", "raw", "--metrics", ",".join(metrics)] + extra + args
    out = subprocess.run(cmd, capture_output=True, text=True)
    if "ERR_NVGPUCTRPERM" in out.stdout + out.stderr:
        fail("ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)")
    lines = [l for l in out.stdout.splitlines(keepends=True) if l.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("".join(lines))))
    rows = [r for r in rows if r.get("ID", "") != "" and not RUNNER_KERNELS.search(r.get("Kernel Name", ""))]
    if not rows:
        tail = (out.stderr or out.stdout).strip().splitlines()[-3:]
        return None, "no kernel profiled: " + " / ".join(tail)
    return aggregate(rows), None


def axis_items(row):
    axes = row.get("axes") or []
    return list(axes.items()) if isinstance(axes, dict) else [tuple(a) for a in axes]


def fmt(v, spec):
    return "" if v is None else format(v, spec)


COMPUTE_COLS = [("regs", "registers_per_thread", ".0f"), ("issue %", "issue_active_pct", ".1f"),
                ("FMA pipe %", "fma_pipe_pct", ".1f"), ("FP64 pipe %", "fp64_pipe_pct", ".1f"),
                ("DMMA pipe %", "dmma_pipe_pct", ".1f"), ("FFMA/instr", "ffma_per_instruction", ".2f"),
                ("DFMA/instr", "dfma_per_instruction", ".2f")]


def table(results, compute=False):
    cols = ["variant", "time", "DRAM GB/s", "DRAM %", "L2 hit %", "smem confl ld/st", "smem B/wf ld/st",
            "gld B/sector", "gst B/sector", "occupancy %"] + ([h for h, _, _ in COMPUTE_COLS] if compute else []) + [
            "top stall (per issue)", "longest kernel"]
    lines = []
    current = None
    for row in results:
        key = (row["family"], row["dtype"], row["shape"])
        if key != current:
            current = key
            lines += ["", f"### {row['family']} {row['dtype']} {row['shape']}", "",
                      "| " + " | ".join(cols) + " |", "|---|" + "--:|" * (len(cols) - 2) + "---|"]
        p = row.get("profile")
        name = f"`{row['variant']}`" + (" (library)" if row.get("source") == "library" else "")
        if not p or "error" in p:
            lines.append(f"| {name} | " + (p or {}).get("error", "not profiled") + " |" * (len(cols) - 1))
            continue
        lines.append("| " + " | ".join([
            name, fmt(p["time_us"], ".1f") + " us", fmt(p.get("dram_gbps"), ".0f"), fmt(p.get("dram_pct_of_peak"), ".0f"),
            fmt(p.get("l2_hit_pct"), ".0f"),
            f"{fmt(p.get('smem_ld_bank_conflicts'), '.3g')} / {fmt(p.get('smem_st_bank_conflicts'), '.3g')}",
            f"{fmt(p.get('smem_ld_bytes_per_wavefront'), '.0f')} / {fmt(p.get('smem_st_bytes_per_wavefront'), '.0f')}",
            fmt(p.get("global_ld_bytes_per_sector"), ".1f"), fmt(p.get("global_st_bytes_per_sector"), ".1f"),
            fmt(p.get("achieved_occupancy_pct"), ".0f")] +
            ([fmt(p.get(k), f) for _, k, f in COMPUTE_COLS] if compute else []) +
            [f"{p.get('top_stall', '')} ({fmt(p.get('top_stall_per_issue'), '.2f')})",
             f"`{p.get('longest_kernel', '')}`"]) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="source", help="profile the rows of this compare JSON")
    ap.add_argument("--compare", default=os.environ.get("KL_COMPARE_EXE", "build/compare"), help="compare executable")
    ap.add_argument("--out", default="compare-out", help="output directory (default compare-out)")
    ap.add_argument("--name", default="profile", help="base name of NAME.md / NAME.json (default profile)")
    ap.add_argument("--variants", default="*", help="only rows whose variant matches this glob (comma-separated)")
    ap.add_argument("--ncu-args", default="", help="extra ncu arguments (quoted)")
    ap.add_argument("--compute", action="store_true",
                    help="also registers, issue rate, FMA/FP64/DMMA pipes and FFMA/DFMA per instruction")
    ap.add_argument("compare_args", nargs=argparse.REMAINDER, help="-- then compare's arguments")
    a = ap.parse_args()
    ncu = find_ncu()
    if not os.access(a.compare, os.X_OK):
        fail(f"compare executable '{a.compare}' not found (--compare or KL_COMPARE_EXE)", 2)
    cargs = a.compare_args[1:] if a.compare_args[:1] == ["--"] else a.compare_args
    if a.source:
        with (gzip.open if a.source.endswith(".gz") else open)(a.source, "rt") as f:
            run = json.load(f)
    elif cargs:
        # A validation-only run lists the rows (problems × variants) the arguments select.
        with tempfile.TemporaryDirectory() as tmp:
            res = subprocess.run([a.compare] + cargs + ["--validate-only", "--no-exact-check", "--no-recheck", "-q", "--out", tmp,
                                                         "--name", "rows"], capture_output=True, text=True)
            path = os.path.join(tmp, "rows.json")
            if not os.path.exists(path):
                fail("compare " + " ".join(map(shlex.quote, cargs)) + ": " + (res.stderr.strip() or "no result"), 2)
            with open(path) as f:
                run = json.load(f)
    else:
        fail("give --from RESULT.json or -- COMPARE_ARGS", 2)

    metrics, dropped = available_metrics(ncu, METRICS + (COMPUTE_METRICS if a.compute else []))
    if dropped:
        print("profile: this ncu/GPU lacks " + ", ".join(dropped) + " (left out)", file=sys.stderr)
    globs = a.variants.split(",")
    results = []
    todo = [r for r in run["results"] if r.get("status") in ("ok", "FAIL") and any(fnmatch.fnmatch(r["variant"], g) for g in globs)]
    for i, row in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {row['family']} {row['dtype']} {row['shape']}: {row['variant']}", file=sys.stderr)
        p, err = profile_variant(ncu, metrics, a.compare, row, shlex.split(a.ncu_args))
        row = dict(row)
        row["profile"] = p if p else {"error": err}
        results.append(row)
    os.makedirs(a.out, exist_ok=True)
    md = "# Nsight Compute per variant\n\n" + (
        f"- device: {run.get('device', {}).get('name', '?')}, commit `{run.get('git_commit', '?')}`\n"
        f"- one validation launch per variant under `ncu --clock-control none`; see scripts/profile.py\n") + table(
        results, a.compute) + "\n"
    with open(os.path.join(a.out, a.name + ".md"), "w") as f:
        f.write(md)
    out = dict(run)
    out["results"] = results
    out["profile_metrics"] = metrics
    with open(os.path.join(a.out, a.name + ".json"), "w") as f:
        json.dump(out, f, indent=1)
    print(md)


if __name__ == "__main__":
    main()
