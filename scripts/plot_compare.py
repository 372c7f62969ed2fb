#!/usr/bin/env python3
"""Turns compare's JSON reports into pictures (PNG), one per (family, type[, axis values]).

usage: scripts/plot_compare.py REPORT.json[.gz] [REPORT ...] -o OUTDIR [--all-configs] [--bars]

- A sweep (three or more sizes of one family and type that differ along one dimension, or
  square/cubic sizes, or five or more matrices whose element counts grow in the order given,
  drawn against M·N): rate against size, one line per variant, log-log where the values span
  more than a decade, library baselines dashed in greys, the ceiling as a horizontal line;
  beside it the same variants as % of the fastest library baseline against size.
- Any other set of sizes (or --bars): the ladder at each size as horizontal bars (rate), with
  the fastest library baseline and the ceiling marked, one panel per size.

Variants that differ only in a spelled-out configuration (gemm9_pipelined_128x128x8_w64x32_t8x8_s3,
..._64x64x16_s4) are drawn in a sweep as one line, the best configuration at each size,
unless --all-configs. Reads schema 1 and 2 reports (kernel-ladder/compare/N), plain or gzipped
(REPORT.json.gz, as results/ keeps the large ones). A (family, type[, axis values]) whose every
row was skipped (allreduce on one GPU) gets no picture; the script says so on stderr.
Needs python3 and matplotlib only. How to read the pictures: docs/judging-progress.md.
"""
import argparse
import gzip
import json
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
except ImportError:
    sys.exit("plot_compare.py: error: matplotlib is missing (apt-get install python3-matplotlib, or pip install matplotlib)")

PROG = "plot_compare.py"

# Dimension names of the families (compare --list shows them), where a report's rows do not
# carry them as "dim_names"; other families' dimensions read as dim0, dim1, ...
DIM_NAMES = {"reduce": ["n"], "dot": ["n"], "gemm": ["M", "N", "K"], "aat": ["M", "K"]}

# A configuration spelled in a variant's name: tile shapes like 128x128x8 and a stage count s3.
CONFIG_TOKEN = re.compile(r"^([wt]?\d+x\d+(x\d+)*|s\d+)$")

LIB_STYLES = [("#000000", "s"), ("#6e6e6e", "D"), ("#a8a8a8", "^"), ("#3b3b3b", "v")]
# tab20 without its greys (those are the libraries'), the nine strong colours first.
_TAB20 = [c for i, c in enumerate(plt.get_cmap("tab20").colors) if i not in (14, 15)]
HAND_COLORS = _TAB20[0::2] + _TAB20[1::2]
HAND_MARKERS = ["o", "v", "^", "<", ">", "p", "h", "*", "X", "P", "d", "8"]
CEILING_COLOR = "#c0392b"


def fail(msg, code=2):
    sys.stderr.write(f"{PROG}: error: {msg}\n")
    sys.exit(code)


def load(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            j = json.load(f)
    except OSError as e:  # gzip's "not a gzipped file" is an OSError without strerror
        fail(f"{path}: cannot read the file ({e.strerror or e})")
    except (ValueError, EOFError) as e:
        fail(f"{path}: not JSON ({e})")
    if not isinstance(j, dict) or not str(j.get("schema", "")).startswith("kernel-ladder/compare/"):
        fail(f'{path}: not a compare report (no "schema": "kernel-ladder/compare/N")')
    if not isinstance(j.get("results"), list):
        fail(f'{path}: no "results" array')
    return j


def config_base(variant):
    """gemm9_pipelined_128x128x8_w64x32_t8x8_s3 -> gemm9_pipelined; names without a configuration unchanged."""
    parts = variant.split("_")
    while len(parts) > 1 and CONFIG_TOKEN.match(parts[-1]):
        parts.pop()
    return "_".join(parts)


def rate(r):
    m = r.get("metric") or {}
    t = m.get("throughput")
    if r.get("status") != "ok" or not isinstance(t, (int, float)) or not t > 0:
        return None
    return float(t)


def is_library(r):
    return r.get("source") == "library"


def axes_text(r):
    a = r.get("axes") or {}
    pairs = a.items() if isinstance(a, dict) else [tuple(p) for p in a]  # schema 2: [[name, value], ...]
    return " ".join(f"{k}={v}" for k, v in pairs)


def group_rows(report):
    """(family, dtype, axes) -> {"shapes": [shape in order], "rows": {shape: [rows]}}."""
    groups = {}
    for r in report["results"]:
        key = (r.get("family", "?"), r.get("dtype", "?"), axes_text(r))
        g = groups.setdefault(key, {"shapes": [], "rows": {}, "dims": {}})
        shape = r.get("shape", "?")
        if shape not in g["rows"]:
            g["shapes"].append(shape)
            g["rows"][shape] = []
            g["dims"][shape] = tuple(r.get("dims") or [])
            if isinstance(r.get("dim_names"), list):
                g["dim_names"] = [str(x) for x in r["dim_names"]]
        g["rows"][shape].append(r)
    return groups


def sweep_axis(family, dims_list, dim_names=None):
    """(x values, x label, tick labels or None) if the sizes form a sweep along one parameter,
    else None."""
    if len(dims_list) < 3 or any(len(d) != len(dims_list[0]) or not d for d in dims_list):
        return None
    names = dim_names or DIM_NAMES.get(family) or [f"dim{i}" for i in range(len(dims_list[0]))]
    if len(names) != len(dims_list[0]):
        names = [f"dim{i}" for i in range(len(dims_list[0]))]
    if len(set(dims_list)) != len(dims_list):
        return None
    if all(len(set(d)) == 1 for d in dims_list):  # square / cubic: one number says the size
        return [d[0] for d in dims_list], " = ".join(names), None
    varying = [i for i in range(len(dims_list[0])) if len({d[i] for d in dims_list}) > 1]
    if len(varying) == 1:
        i = varying[0]
        fixed = ", ".join(f"{names[k]}={dims_list[0][k]}" for k in range(len(names)) if k != i)
        return [d[i] for d in dims_list], names[i] + (f"  ({fixed})" if fixed else ""), None
    # Matrices that grow in both dimensions, in the order given (document 003's sweep, 1000×500
    # … 2500×2000): five or more, their element counts increasing, drawn against M·N.
    if len(names) == 2 and len(dims_list) >= 5:
        counts = [d[0] * d[1] for d in dims_list]
        if all(a < b for a, b in zip(counts, counts[1:])):
            return counts, f"{names[0]} × {names[1]} (placed at M·N elements)", [f"{d[0]}×{d[1]}" for d in dims_list]
    return None


def run_subtitle(report):
    dev = (report.get("device") or {}).get("name", "unknown GPU")
    commit = report.get("git_commit", "unknown")
    when = str(report.get("timestamp_utc", ""))[:10]
    mode = str(report.get("mode", "kernel")).split(" ")[0]
    return f"{dev} · commit {commit}" + (f" · {when}" if when else "") + (f" · {mode} mode" if mode != "kernel" else "")


def rate_meaning(rows):
    m = next(((r.get("metric") or {}) for r in rows if r.get("metric")), {})
    unit, work = m.get("unit", "rate"), m.get("work_unit", "work")
    if work == "flop":
        return unit, f"{unit}: the operation's flops / median time"
    if work == "bytes":
        return unit, f"{unit}: the fewest bytes the operation must move / median time"
    return unit, f"{unit}: {work} / median time"


def ceiling_of(rows):
    """(value in the rate's unit, label) from the rows' vs_ceiling, or (None, None)."""
    vals, label = [], None
    for r in rows:
        m = r.get("metric") or {}
        t, c = rate(r), m.get("vs_ceiling")
        if t and isinstance(c, (int, float)) and c > 0:
            vals.append(t / c)
            label = label or m.get("ceiling")
    if not vals:
        return None, None
    vals.sort()
    return vals[len(vals) // 2], label


def short_ceiling(label):
    """'FP32 FMA peak 66.9 TFLOP/s (128 lanes/SM x ...)' -> 'FP32 FMA peak 66.9 TFLOP/s'; keeps '(measured)'."""
    m = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", label or "")
    return m.group(1) if m and len(m.group(2)) > 12 else label


def value_text(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def pow2_label(v, _pos=None):
    if v <= 0:
        return ""
    e = math.log2(v)
    if abs(e - round(e)) < 1e-9:
        return f"$2^{{{int(round(e))}}}$"
    return f"{v:g}"


def plain_label(v, _pos=None):
    return f"{int(v)}" if v == int(v) else f"{v:g}"


def percent_label(v, _pos=None):
    return f"{v:g}%"


def style_log_y(ax, formatter=None):
    """Log y with labels at 1, 2, 5 of each decade, so a reader can read values off it."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=tuple(range(1, 10))))
    ax.yaxis.set_major_formatter(FuncFormatter(formatter or (lambda v, _p: f"{v:g}")))
    ax.yaxis.set_minor_formatter(NullFormatter())


def file_stem(text):
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text).strip("_")


# ---- sweeps --------------------------------------------------------------------------------


def sweep_series(g, xs, all_configs):
    """Lines: [(label, is_library, [(x, rate, pct_of_lib)])] in ladder order; and what failed."""
    order, series, failed = [], {}, []
    bases = {}
    for shape in g["shapes"]:
        for r in g["rows"][shape]:
            v = r.get("variant", "?")
            base = v if all_configs or is_library(r) else config_base(v)
            bases.setdefault(base, set()).add(v)
    for shape, x in zip(g["shapes"], xs):
        best = {}
        for r in g["rows"][shape]:
            v = r.get("variant", "?")
            base = v if all_configs or is_library(r) else config_base(v)
            if len(bases[base]) == 1:
                base = v  # a single configuration keeps its full name
            if base not in series:
                order.append(base)
                series[base] = {"lib": is_library(r), "points": {}}
            t = rate(r)
            if t is None:
                if r.get("status") not in ("ok", "skipped"):
                    failed.append(f"{v} at {shape}: {r.get('status')}")
                continue
            pct = (r.get("metric") or {}).get("vs_library")
            if base not in best or t > best[base][0]:
                best[base] = (t, 100.0 * pct if isinstance(pct, (int, float)) and pct > 0 else None)
        for base, (t, pct) in best.items():
            series[base]["points"][x] = (t, pct)
    lines = []
    for base in order:
        s = series[base]
        n = len(bases.get(base, ()))
        label = base + (f"  (best of {n} configs)" if n > 1 else "") + ("  [lib]" if s["lib"] else "")
        pts = sorted((x, t, p) for x, (t, p) in s["points"].items())
        if pts:
            lines.append((label, s["lib"], pts))
    return lines, failed


def style_log_x(ax, xs, tick_labels=None):
    ax.set_xscale("log", base=2)
    if tick_labels:  # one tick per size, named by its shape
        ax.set_xticks(xs)
        ax.set_xticklabels(tick_labels, rotation=30, ha="right")
        ax.xaxis.set_minor_formatter(NullFormatter())
        return
    powers_of_two = all(x > 0 and abs(math.log2(x) - round(math.log2(x))) < 1e-9 for x in xs)
    fmt = pow2_label if powers_of_two and max(xs) >= 2**14 else plain_label
    ticks = sorted(set(xs))
    if len(ticks) > 10:  # thinned, so the labels do not collide
        ticks = ticks[:: math.ceil(len(ticks) / 10)]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(fmt))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_sweep(report, key, g, sweep, out_dir, stem, all_configs):
    family, dtype, axes = key
    xs, xlabel, tick_labels = sweep
    lines, failed = sweep_series(g, xs, all_configs)
    if not lines:
        return None
    all_rows = [r for s in g["shapes"] for r in g["rows"][s]]
    unit, meaning = rate_meaning(all_rows)
    ceiling, ceiling_label = ceiling_of(all_rows)

    fig, (ax_rate, ax_pct) = plt.subplots(1, 2, figsize=(15, 7.2), constrained_layout=True)
    hand_i, lib_i = 0, 0
    handles = []
    for label, lib, pts in lines:
        x = [p[0] for p in pts]
        if lib:
            color, marker = LIB_STYLES[lib_i % len(LIB_STYLES)]
            lib_i += 1
            kw = dict(color=color, marker=marker, linestyle="--", linewidth=2.6, markersize=7, zorder=4)
        else:
            color, marker = HAND_COLORS[hand_i % len(HAND_COLORS)], HAND_MARKERS[hand_i % len(HAND_MARKERS)]
            hand_i += 1
            kw = dict(color=color, marker=marker, linestyle="-", linewidth=1.6, markersize=5.5, zorder=3)
        (h,) = ax_rate.plot(x, [p[1] for p in pts], label=label, **kw)
        handles.append(h)
        pp = [(p[0], p[2]) for p in pts if p[2] is not None]
        if pp:
            ax_pct.plot([p[0] for p in pp], [p[1] for p in pp], **kw)

    rates = [p[1] for _, _, pts in lines for p in pts]
    if ceiling:
        h = ax_rate.axhline(ceiling, color=CEILING_COLOR, linestyle=":", linewidth=2,
                            label=f"ceiling: {short_ceiling(ceiling_label) or f'{ceiling:.4g} {unit}'}")
        handles.append(h)
        rates.append(ceiling)
    if max(rates) / min(rates) > 10:
        style_log_y(ax_rate)
    else:
        ax_rate.set_ylim(bottom=0)
    ax_rate.set_ylabel(f"rate ({unit}, higher is better)")
    ax_rate.set_title("rate against size")

    pcts = [p[2] for _, _, pts in lines for p in pts if p[2] is not None]
    ax_pct.axhline(100, color="#000000", linewidth=1.2, linestyle="-", zorder=2)
    if pcts and max(pcts) / max(min(pcts), 1e-9) > 20:
        style_log_y(ax_pct, percent_label)
    else:
        ax_pct.yaxis.set_major_formatter(FuncFormatter(percent_label))
        ax_pct.set_ylim(bottom=0)
    ax_pct.set_ylabel("% of the fastest library baseline (100% = as fast)")
    ax_pct.set_title("against the library")

    for ax in (ax_rate, ax_pct):
        style_log_x(ax, xs, tick_labels)
        ax.set_xlabel(xlabel)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", axis="y", alpha=0.12)

    title = f"{family} {dtype}{(' ' + axes) if axes else ''} — {meaning}"
    note = ""
    if failed:  # named in the title, so a missing point is never mistaken for a slow one
        note = "\nnot plotted: " + "; ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else "")
    fig.suptitle(f"{title}\n{run_subtitle(report)}{note}", fontsize=12)
    ax_pct.legend(handles=handles, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8.5, frameon=False)
    path = os.path.join(out_dir, f"{stem}-{file_stem(family)}-{file_stem(dtype)}{'-' + file_stem(axes) if axes else ''}-sweep.png")
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.2)
    plt.close(fig)
    return path


# ---- ladders (bars) --------------------------------------------------------------------------


def ladder_panel(ax, rows, shape, unit):
    names, vals, colors, notes = [], [], [], []
    lib_rates = [rate(r) for r in rows if is_library(r) and rate(r)]
    best_lib = max(lib_rates) if lib_rates else None
    for r in rows:
        t = rate(r)
        names.append(r.get("variant", "?") + ("  [lib]" if is_library(r) else ""))
        vals.append(t or 0.0)
        colors.append("#5a5a5a" if is_library(r) else "#2f6db5")
        if t is None:
            notes.append(r.get("status", "?"))
        else:
            pct = (r.get("metric") or {}).get("vs_library")
            shown = isinstance(pct, (int, float)) and pct > 0 and not is_library(r)
            notes.append(value_text(t) + (f"  ({100 * pct:.0f}% of lib)" if shown else ""))
    y = list(range(len(rows)))
    ax.barh(y, vals, color=colors, height=0.72, zorder=3)
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8.5)
    # Ladder order top to bottom, and an empty strip below the last bar for the legend.
    ax.set_ylim(len(rows) + 0.5, -0.6)
    ceiling, ceiling_label = ceiling_of(rows)
    longest = max(vals + [best_lib or 0, 1e-12])
    # A ceiling far above every bar (a small problem) would squash the bars: then it is named
    # in the legend, not drawn to scale.
    ceiling_on_scale = ceiling is not None and ceiling <= 2.5 * longest
    top = max(longest, ceiling if ceiling_on_scale else 0)
    for yi, v, note in zip(y, vals, notes):
        ax.text(v + top * 0.012, yi, note, va="center", fontsize=7.5, zorder=6,
                color=CEILING_COLOR if v == 0 else "#222222",
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.75, pad=0.6))
    if best_lib:
        ax.axvline(best_lib, color="#000000", linestyle="--", linewidth=1.4, zorder=4,
                   label=f"fastest library: {value_text(best_lib)} {unit}")
    if ceiling:
        text = f"ceiling: {short_ceiling(ceiling_label) or f'{ceiling:.4g} {unit}'}"
        if ceiling_on_scale:
            ax.axvline(ceiling, color=CEILING_COLOR, linestyle=":", linewidth=2, zorder=4, label=text)
        else:
            ax.plot([], [], color=CEILING_COLOR, linestyle=":", linewidth=2, label=text + " (off the scale)")
    ax.set_xlim(0, top * 1.3)  # room for the value labels
    ax.set_xlabel(f"rate ({unit}, higher is better)")
    ax.set_title(shape, fontsize=10.5)
    ax.grid(True, axis="x", alpha=0.3, zorder=0)
    ax.legend(loc="lower right", ncol=2, fontsize=8, framealpha=0.95, borderaxespad=0.3)


def plot_ladders(report, key, g, out_dir, stem):
    family, dtype, axes = key
    shapes = g["shapes"]
    rows_all = [r for s in shapes for r in g["rows"][s]]
    unit, meaning = rate_meaning(rows_all)
    n = len(shapes)
    cols = 1 if n == 1 else 2
    nrows = math.ceil(n / cols)
    per_panel = max(len(g["rows"][s]) for s in shapes)
    height = nrows * (0.30 * per_panel + 2.0) + 0.9
    fig, axs = plt.subplots(nrows, cols, figsize=(9.5 * cols, height), squeeze=False, constrained_layout=True)
    for i, shape in enumerate(shapes):
        ladder_panel(axs[i // cols][i % cols], g["rows"][shape], shape, unit)
    for j in range(n, nrows * cols):
        axs[j // cols][j % cols].axis("off")
    title = f"{family} {dtype}{(' ' + axes) if axes else ''}: the ladder — {meaning}"
    fig.suptitle(f"{title}\n{run_subtitle(report)}", fontsize=12)
    path = os.path.join(out_dir, f"{stem}-{file_stem(family)}-{file_stem(dtype)}{'-' + file_stem(axes) if axes else ''}-ladder.png")
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.2)
    plt.close(fig)
    return path


def report_stem(path):
    """results/h100/default.json.gz -> default"""
    name = os.path.basename(path)
    for ext in (".json.gz", ".json", ".gz"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return file_stem(name)


def all_skipped(g):
    return all(r.get("status") == "skipped" for s in g["shapes"] for r in g["rows"][s])


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description="Plots compare's JSON reports (rate and % of library).")
    ap.add_argument("reports", nargs="+", metavar="REPORT.json[.gz]")
    ap.add_argument("-o", "--out", required=True, metavar="OUTDIR", help="directory for the PNGs (created)")
    ap.add_argument("--all-configs", action="store_true",
                    help="in sweeps, one line per configuration instead of the best configuration per size")
    ap.add_argument("--bars", action="store_true", help="ladder bars for every size, also where the sizes form a sweep")
    args = ap.parse_args(argv)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        fail(f"{args.out}: cannot create the directory ({e.strerror})")
    written = []
    for path in args.reports:
        report = load(path)
        stem = report_stem(path)
        for key, g in group_rows(report).items():
            if all_skipped(g):
                reason = next((r.get("note") for s in g["shapes"]
                               for r in g["rows"][s] if r.get("note")), None)
                label = " ".join(x for x in key if x)
                sys.stderr.write(f"{PROG}: {path}: {label}: every row skipped, no picture"
                                 + (f" ({reason})" if reason else "") + "\n")
                continue
            sweep = None if args.bars else sweep_axis(key[0], [g["dims"][s] for s in g["shapes"]], g.get("dim_names"))
            out = plot_sweep(report, key, g, sweep, args.out, stem, args.all_configs) if sweep else None
            if out is None:
                out = plot_ladders(report, key, g, args.out, stem)
            written.append(out)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
