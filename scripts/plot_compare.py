#!/usr/bin/env python3
"""Turns compare's JSON reports into pictures (PNG), one per (family, type[, axis values]).

usage: scripts/plot_compare.py REPORT.json[.gz] [REPORT ...] -o OUTDIR [--all-configs] [--bars]

- A sweep (four or more sizes of one family and type that differ along one dimension, or
  square/cubic sizes, or five or more matrices whose element counts grow in the order given,
  drawn against M·N; in each case sizes in a geometric progression: see is_geometric):
  REPORT-family-type-sweep.png, rate against size, one line per variant, on a log x axis
  (ticks 2^k where every size is a power of two, thinned until none overlap), log y where the
  values span more than a decade, library baselines dashed in greys, the ceiling as a
  horizontal line; beside it the same variants as % of the fastest library baseline.
- Several sizes that are not a sweep (the default run's 1000, 1024, 1025, 2^28): never lines,
  REPORT-family-type-sizes.png, grouped bars: one group per size, one numbered bar per variant in
  ladder order, library bars hatched; the rate above (each size on its own linear scale), % of
  the fastest library below (one scale for all sizes).
- A single size (or --bars): REPORT-family-type-ladder.png, the ladder at each size as horizontal
  bars (rate), with the fastest library baseline and the ceiling marked, one panel per size.

Each PNG's Description (a tEXt/iTXt chunk) says what was drawn: kind=lines|bars|ladder, each
panel's x scale and x tick labels, and whether any of them overlap (the test reads it).
Variants that differ only in a spelled-out configuration (gemm9_pipelined_128x128x8_w64x32_t8x8_s3,
..._64x64x16_s4) are drawn in a sweep as one line (in grouped bars as one bar), the best configuration at each size,
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
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator
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
LIB_HATCH = "///"
DPI = 90  # modest: the pictures are committed (results/*/plots/)


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


# A sweep: at least SWEEP_MIN_POINTS sizes, spanning SWEEP_MIN_SPAN or more from the smallest to
# the largest, each SWEEP_MIN_STEP or more times the one before, the steps even on a log axis
# (the longest at most SWEEP_MAX_UNEVEN times the shortest, in log terms). 2^10..2^20 and document
# 003's matrices are sweeps; 1000, 1024, 1025, 2^28 (the default run's dot) are not.
SWEEP_MIN_POINTS, SWEEP_MIN_SPAN, SWEEP_MIN_STEP, SWEEP_MAX_UNEVEN = 4, 8.0, 1.2, 4.0


def is_geometric(xs):
    """Whether the sizes xs (positive numbers, any order) form a sweep worth a line on a log axis."""
    v = sorted(set(xs))
    if len(v) < SWEEP_MIN_POINTS or v[0] <= 0 or v[-1] / v[0] < SWEEP_MIN_SPAN:
        return False
    steps = [math.log(b / a) for a, b in zip(v, v[1:])]
    return min(steps) >= math.log(SWEEP_MIN_STEP) and max(steps) <= SWEEP_MAX_UNEVEN * min(steps)


def sweep_axis(family, dims_list, dim_names=None):
    """(x values, x label, tick labels or None) if the sizes form a sweep along one parameter
    (is_geometric), else None: unrelated sizes are drawn as bars, never joined by lines."""
    found = _sweep_candidate(family, dims_list, dim_names)
    return found if found and is_geometric(found[0]) else None


def _sweep_candidate(family, dims_list, dim_names=None):
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


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def pow2_text(k):
    """2**k as 2 and a superscript k (plain text, no mathtext: quicker to draw)."""
    return "2" + str(k).translate(SUPERSCRIPT)


def pow2_label(v, _pos=None):
    if v <= 0:
        return ""
    e = math.log2(v)
    if abs(e - round(e)) < 1e-9:
        return pow2_text(int(round(e)))
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


def picture_path(out_dir, stem, key, kind):
    """OUTDIR/STEM-family-type[-axes]-KIND.png; KIND: sweep (lines), sizes (bars), ladder."""
    family, dtype, axes = key
    return os.path.join(out_dir, f"{stem}-{file_stem(family)}-{file_stem(dtype)}{'-' + file_stem(axes) if axes else ''}-{kind}.png")


# ---- sweeps --------------------------------------------------------------------------------


def sweep_series(g, xs, all_configs):
    """Lines: [(label, is_library, [(x, rate, pct_of_lib)])] in ladder order; and what failed."""
    order, series, failed = [], {}, []
    bases, why = {}, {}
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
                    why.setdefault(base, {})[x] = "failed"
                else:
                    why.setdefault(base, {}).setdefault(x, "skipped")
                continue
            pct = (r.get("metric") or {}).get("vs_library")
            if base not in best or t > best[base][0]:
                best[base] = (t, 100.0 * pct if isinstance(pct, (int, float)) and pct > 0 else None)
        for base, (t, pct) in best.items():
            series[base]["points"][x] = (t, pct)
    lines, missing = [], {}
    for base in order:
        s = series[base]
        n = len(bases.get(base, ()))
        label = base + (f"  (best of {n} configs)" if n > 1 else "") + ("  [lib]" if s["lib"] else "")
        pts = sorted((x, t, p) for x, (t, p) in s["points"].items())
        if pts:
            lines.append((label, s["lib"], pts))
            missing[label] = {x: w for x, w in why.get(base, {}).items() if x not in s["points"]}
    return lines, failed, missing


def is_power_of_two(x):
    return x > 0 and abs(math.log2(x) - round(math.log2(x))) < 1e-9


def style_log_x(ax, xs, tick_labels=None):
    """Log x (base 2), one tick per size: named by its shape where tick_labels are given, as 2^k
    where every size is a power of two, else the number. declutter_x thins them if they collide."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_minor_locator(NullLocator())
    if tick_labels:
        pairs = sorted(zip(xs, tick_labels))
        ax.set_xticks([p[0] for p in pairs])
        ax.set_xticklabels([p[1] for p in pairs], rotation=30, ha="right")
        return
    fmt = pow2_label if all(is_power_of_two(x) for x in xs) else plain_label
    ax.set_xticks(sorted(set(xs)))
    ax.xaxis.set_major_formatter(FuncFormatter(fmt))
    if fmt is plain_label and max(len(plain_label(x)) for x in xs) > 6:
        for t in ax.get_xticklabels():
            t.set_rotation(30)
            t.set_ha("right")


def labels_collide(fig, ax):
    """Whether two of ax's visible x tick labels overlap (2 px of air required)."""
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels()
             if t.get_visible() and t.get_text()]
    boxes.sort(key=lambda b: b.x0)
    return any(b.x0 < a.x1 + 2 and b.y0 < a.y1 and a.y0 < b.y1 for a, b in zip(boxes, boxes[1:]))


def declutter_x(fig, axes):
    """Drops every other x tick (keeping the first and the last) until no two labels overlap.
    Leaves the figure drawn (describe() need not draw it again)."""
    for _ in range(8):
        fig.canvas.draw()
        crowded = [ax for ax in axes if labels_collide(fig, ax) and len(ax.get_xticks()) > 2]
        if not crowded:
            return
        for ax in crowded:
            ticks, labels = list(ax.get_xticks()), [t.get_text() for t in ax.get_xticklabels()]
            keep = sorted(set(range(0, len(ticks), 2)) | {len(ticks) - 1})
            if len(keep) >= 3 and keep[-1] - keep[-2] == 1:
                keep.pop(-2)  # the last tick and its neighbour would collide again
            rot, ha = ax.get_xticklabels()[0].get_rotation(), ax.get_xticklabels()[0].get_ha()
            ax.set_xticks([ticks[i] for i in keep])
            ax.set_xticklabels([labels[i] for i in keep], rotation=rot, ha=ha)


def describe(fig, kind, drawn=False):
    """What the picture is, for the PNG's Description (test_plot_compare.py reads it): the kind
    (lines: a sweep; bars: unrelated sizes; ladder: one panel per size), each axis's x scale and
    x tick labels, and whether any x tick labels overlap."""
    parts = [f"kind={kind}"]
    if not drawn:
        fig.canvas.draw()
    # The layout is made: savefig's two draws keep it instead of making it twice again.
    fig.set_layout_engine("none")
    for i, ax in enumerate(a for a in fig.axes if a.get_visible() and a.axison):
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        parts.append(f"ax{i}.xscale={ax.get_xscale()}")
        parts.append(f"ax{i}.xticks=" + "|".join(labels))
        parts.append(f"ax{i}.overlap={'yes' if labels_collide(fig, ax) else 'no'}")
    return "; ".join(parts)


def save(fig, path, kind, drawn=False):
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.2,
                metadata={"Title": os.path.basename(path), "Description": describe(fig, kind, drawn)})
    plt.close(fig)
    return path


def plot_sweep(report, key, g, sweep, out_dir, stem, all_configs):
    family, dtype, axes = key
    xs, xlabel, tick_labels = sweep
    lines, failed, _ = sweep_series(g, xs, all_configs)
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
        ax.set_xlabel(xlabel + "  (log scale)")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", axis="y", alpha=0.12)

    title = f"{family} {dtype}{(' ' + axes) if axes else ''} — {meaning}"
    note = ""
    if failed:  # named in the title, so a missing point is never mistaken for a slow one
        note = "\nnot plotted: " + "; ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else "")
    fig.suptitle(f"{title}\n{run_subtitle(report)}{note}", fontsize=12)
    ax_pct.legend(handles=handles, loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8.5, frameon=False)
    declutter_x(fig, (ax_rate, ax_pct))
    return save(fig, picture_path(out_dir, stem, key, "sweep"), "lines", drawn=True)


# ---- unrelated sizes (grouped bars) -------------------------------------------------------

PCT_CAP = 300.0  # % of library: bars above it are cut there and labelled with their value
MISSING_MARKS = {"failed": dict(marker="x", color=CEILING_COLOR, markersize=7, markeredgewidth=2),
                 "skipped": dict(marker="o", markerfacecolor="none", color="#777777", markersize=6, markeredgewidth=1.5)}
MISSING_TEXT = {"failed": "failed here: no bar (the title says how)", "skipped": "skipped here: no bar (the report says why)"}


def size_label(shape, axes):
    """'1000x1000 op=row_sum layout=packed' -> '1000x1000' (the axes are in the title);
    'n=268435456' -> 'n=268435456 (2^28)'."""
    if axes and shape.endswith(" " + axes):
        shape = shape[: -len(axes) - 1]
    return re.sub(r"\b(\d{5,})\b", lambda m: m.group(1) + (f" ({pow2_text(round(math.log2(int(m.group(1)))))})"
                  if is_power_of_two(int(m.group(1))) else ""), shape)


def plot_sizes(report, key, g, out_dir, stem, all_configs):
    """Sizes that are not a sweep: one group per size (a column), one bar per variant at the same
    place in every group, numbered in ladder order; above, the rate (each size on its own linear
    scale: the sizes are unrelated), below, % of the fastest library baseline (one scale)."""
    family, dtype, axes = key
    shapes = g["shapes"]
    series, failed, missing_of = sweep_series(g, list(range(len(shapes))), all_configs)
    if not series:
        return None
    all_rows = [r for s_ in shapes for r in g["rows"][s_]]
    unit, meaning = rate_meaning(all_rows)
    n, nb = len(shapes), len(series)
    cols = min(n, 6)
    pairs = math.ceil(n / cols)
    panel_w = max(2.4, 0.17 * nb + 0.7)
    fig = plt.figure(figsize=(panel_w * cols + 0.6, pairs * 6.4 + 0.6), constrained_layout=True)
    grid = fig.add_gridspec(2 * pairs, cols, height_ratios=[3.3, 2.6] * pairs)

    styles, lib_i, hand_i = [], 0, 0
    for label, lib, _ in series:
        if lib:
            styles.append(dict(color=LIB_STYLES[lib_i % len(LIB_STYLES)][0], hatch=LIB_HATCH, edgecolor="white"))
            lib_i += 1
        else:  # past the palette, the colours come again dotted (and the numbers tell them apart)
            again = hand_i >= len(HAND_COLORS)
            styles.append(dict(color=HAND_COLORS[hand_i % len(HAND_COLORS)], hatch="..." if again else None,
                               edgecolor="white" if again else "none"))
            hand_i += 1
    pos = list(range(nb))
    numbers = [str(i + 1) for i in pos]
    pct_axes, seen_marks, any_cut, ceiling_off = [], set(), False, []
    pct_all = [p[2] for _, _, pts in series for p in pts if p[2] is not None]
    pct_top = min(max(pct_all + [100.0]) * 1.12, PCT_CAP) if pct_all else None
    for i, shape in enumerate(shapes):
        row, col = 2 * (i // cols), i % cols
        ax_rate = fig.add_subplot(grid[row, col])
        ax_pct = fig.add_subplot(grid[row + 1, col], sharex=ax_rate,
                                 sharey=pct_axes[0] if pct_axes else None)
        pct_axes.append(ax_pct)
        at = [next(((t, p) for x, t, p in pts if x == i), None) for _, _, pts in series]
        rates = [a[0] if a else 0.0 for a in at]
        for b, st in enumerate(styles):
            ax_rate.bar(pos[b], rates[b], width=0.8, zorder=3, linewidth=0.6, **st)
            pct = at[b][1] if at[b] else None
            if pct is not None and pct_top is not None:
                ax_pct.bar(pos[b], min(pct, pct_top), width=0.8, zorder=3, linewidth=0.6, **st)
                if pct > pct_top:
                    any_cut = True
                    ax_pct.text(pos[b], pct_top * 0.97, f"{pct:.0f}%", rotation=90, ha="center", va="top",
                                fontsize=7, color="white", fontweight="bold", zorder=5)
        why = [missing_of[label].get(i, "skipped") if at[b] is None else None
               for b, (label, _, _) in enumerate(series)]
        marks = {w: [b for b in pos if why[b] == w] for w in ("failed", "skipped")}
        seen_marks.update(w for w, bs in marks.items() if bs)
        rows = g["rows"][shape]
        lib_rates = [rate(r) for r in rows if is_library(r) and rate(r)]
        best_lib = max(lib_rates) if lib_rates else None
        ceiling, ceiling_label = ceiling_of(rows)
        top = max(rates + [best_lib or 0, 1e-12])
        if ceiling is not None and ceiling <= 2.0 * top:
            ax_rate.axhline(ceiling, color=CEILING_COLOR, linestyle=":", linewidth=2, zorder=4)
            top = max(top, ceiling)
        elif ceiling is not None:
            ceiling_off.append(size_label(shape, axes))
        if best_lib:
            ax_rate.axhline(best_lib, color="#000000", linestyle="--", linewidth=1.3, zorder=4)
        ax_rate.set_ylim(0, top * 1.1)
        # A bar too short to see is written out, so that it is not read as missing.
        for ax, vals, ymax, fmt in ((ax_rate, [a[0] if a else None for a in at], top * 1.1, value_text),
                                    (ax_pct, [a[1] if a else None for a in at], pct_top or 1, lambda v: f"{v:.2g}%")):
            for b, v in enumerate(vals):
                if v is not None and v < 0.03 * ymax:
                    ax.text(pos[b], v + 0.01 * ymax, fmt(v), rotation=90, ha="center", va="bottom",
                            fontsize=6.5, color="#222222", zorder=5)
        for ax, ymax in ((ax_rate, top * 1.1), (ax_pct, pct_top or 1)):
            for w, bs in marks.items():
                if bs:
                    ax.plot(bs, [0.03 * ymax] * len(bs), linestyle="none", zorder=6, **MISSING_MARKS[w])
            ax.grid(True, axis="y", alpha=0.35, zorder=0)
            ax.set_xlim(-0.7, nb - 0.3)
        ax_rate.set_title(size_label(shape, axes), fontsize=10.5, fontweight="bold")
        ax_rate.tick_params(axis="x", labelbottom=False, length=0)
        ax_pct.set_xticks(pos)
        ax_pct.set_xticklabels(numbers, fontsize=7 if nb > 12 else 8)
        ax_pct.tick_params(axis="x", length=0, pad=2)
        ax_pct.set_xlabel(size_label(shape, axes), fontsize=10)
        ax_pct.axhline(100, color="#000000", linewidth=1.2, zorder=4)
        ax_rate.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        if col == 0:
            ax_rate.set_ylabel(f"rate ({unit}, higher is better)\nthis size's own scale")
            ax_pct.set_ylabel("% of the fastest library\n(100% = as fast)")
        else:
            ax_pct.tick_params(axis="y", labelleft=False)
    if pct_top is not None:
        pct_axes[0].set_ylim(0, pct_top)
        pct_axes[0].yaxis.set_major_formatter(FuncFormatter(percent_label))

    handles = [Patch(facecolor=st["color"], hatch=st.get("hatch"), edgecolor=st["edgecolor"],
                     label=f"{num}  {label}") for st, num, (label, _, _) in zip(styles, numbers, series)]
    handles.append(Line2D([], [], color="#000000", linestyle="--", linewidth=1.3,
                          label="fastest library at the size (rate)"))
    handles.append(Line2D([], [], color="#000000", linewidth=1.2, label="100% of the fastest library"))
    ceiling, ceiling_label = ceiling_of(all_rows)
    if ceiling:
        text = f"ceiling: {short_ceiling(ceiling_label) or f'{ceiling:.4g} {unit}'}"
        if ceiling_off:
            text += f"\n(off the scale at {', '.join(ceiling_off)})"
        handles.append(Line2D([], [], color=CEILING_COLOR, linestyle=":", linewidth=2, label=text))
    for w in ("failed", "skipped"):
        if w in seen_marks:
            handles.append(Line2D([], [], linestyle="none", label=MISSING_TEXT[w], **MISSING_MARKS[w]))
    if any_cut:
        handles.append(Patch(facecolor="#bbbbbb", label=f"bars above {pct_top:.0f}% cut, value written"))
    fig.legend(handles=handles, loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=8.5, frameon=False)
    title = f"{family} {dtype}{(' ' + axes) if axes else ''} at {n} unrelated sizes — {meaning}"
    note = ""
    if failed:
        note = "\nnot plotted: " + "; ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else "")
    fig.suptitle(f"{title}\n{run_subtitle(report)}{note}", fontsize=12)
    return save(fig, picture_path(out_dir, stem, key, "sizes"), "bars")


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
    bars = ax.barh(y, vals, color=colors, height=0.72, zorder=3, linewidth=0.6)
    for bar, r in zip(bars, rows):
        if is_library(r):  # as in the sizes pictures: library bars hatched
            bar.set_hatch(LIB_HATCH)
            bar.set_edgecolor("white")
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
    return save(fig, picture_path(out_dir, stem, key, "ladder"), "ladder")


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
    ap.add_argument("--bars", action="store_true",
                    help="ladder bars (one panel per size, every configuration) instead of sweep lines or grouped bars")
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
            out = None
            if not args.bars:
                sweep = sweep_axis(key[0], [g["dims"][s] for s in g["shapes"]], g.get("dim_names"))
                if sweep:
                    out = plot_sweep(report, key, g, sweep, args.out, stem, args.all_configs)
                elif len(g["shapes"]) > 1:
                    out = plot_sizes(report, key, g, args.out, stem, args.all_configs)
            if out is None:
                out = plot_ladders(report, key, g, args.out, stem)
            written.append(out)
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
