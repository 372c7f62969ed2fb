#!/usr/bin/env python3
"""Turns `ncu --csv --page raw` output (scripts/profile-sgemm.sh) into a markdown table: one row
per kernel (its last profiled launch), the columns that say what limits a gemm kernel."""
import csv
import re
import sys

COLUMNS = [  # (header, metric, format)
    ("time", "gpu__time_duration.sum", "{:.4g}"),
    ("regs", "launch__registers_per_thread", "{:.0f}"),
    ("warps/SM", "sm__warps_active.avg.per_cycle_active", "{:.1f}"),
    ("issue active", "sm__issue_active.avg.pct_of_peak_sustained_elapsed", "{:.1f}"),
    ("FMA pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "{:.1f}"),
    ("FFMA / instr", None, "{:.2f}"),
    ("DFMA / instr", None, "{:.2f}"),
    ("FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "{:.1f}"),
    ("DMMA pipe", "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active", "{:.1f}"),
    ("DRAM read", "dram__bytes_read.sum", "{:.3g}"),
    ("smem ld wavefronts / conflicts", None, "{}"),
    ("stall barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "{:.2f}"),
    ("stall long sb", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "{:.2f}"),
    ("stall mio", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", "{:.2f}"),
    ("stall short sb", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "{:.2f}"),
    ("stall not sel.", "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", "{:.2f}"),
    ("stall math", "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio", "{:.2f}"),
    ("stall dispatch", "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio", "{:.2f}"),
]


def num(row, key):
    v = row.get(key, "").replace(",", "")
    try:
        return float(v)
    except ValueError:
        return None


def short(name):
    """The kernel's name without 'void', its arguments or the namespace prefix; cuBLAS's long
    names keep their first 70 characters (enough for the tile size)."""
    name = re.sub(r"^void ", "", name)
    name = re.sub(r"\(.*\)$", "", name).replace("kl::", "")
    return name if "<" in name else name[:70]


def main(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # drop compare's and ncu's own lines
    rows = list(csv.DictReader(lines))
    units = rows[0] if rows and rows[0].get("ID", "") == "" else {}
    rows = [r for r in rows if r.get("ID", "") != ""]
    last = {}
    for r in rows:
        last[r["Kernel Name"]] = r  # the sample launch, after the validation launch
    print("| kernel | " + " | ".join(h + (f" ({units.get(m, '')})" if m and units.get(m) else "")
                                    for h, m, _ in COLUMNS) + " |")
    print("|---|" + "--:|" * len(COLUMNS))
    for name, r in last.items():
        cells = []
        for h, m, fmt in COLUMNS:
            if h in ("FFMA / instr", "DFMA / instr"):
                op = "ffma" if h.startswith("F") else "dfma"
                fma = num(r, f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum")
                inst = num(r, "smsp__inst_executed.sum")
                cells.append(fmt.format(fma / 32 / inst) if fma is not None and inst else "")
            elif h.startswith("smem ld"):
                w = num(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
                c = num(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
                cells.append(f"{w:.3g} / {c:.3g}" if w is not None and c is not None else "")
            else:
                v = num(r, m)
                cells.append(fmt.format(v) if v is not None else "")
        print(f"| `{short(name)}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
