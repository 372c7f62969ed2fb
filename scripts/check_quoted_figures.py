#!/usr/bin/env python3
"""Checks that every measured figure README.md and docs/*.md quote is in the results file they cite.

usage: scripts/check_quoted_figures.py [--root DIR] [--list] [FILE.md ...]

The convention (README.md, "Results", says it in short):

- A *figure* is a number followed by a unit of measurement: %, µs (us), ms, s (a word of its
  own: "164 s", "22 to 28 s"), GB/s, TB/s, TFLOP/s, or a ratio, a number directly followed by
  "×" ("1.43×", "2.65× faster"). Ranges quote both ends ("89.9–91.3%", "92.7-93.4%"): each end
  is a figure. A "×" between numbers or before a model is a shape or a count, not a ratio:
  "4096×4096", "128×128×16", "M×1", "4097 × 1023", "2²⁸×", "2× H200" (a ratio's "×" is
  followed by a space, punctuation or the end, then by no number and no name like H200).
- A figure is *cited* by the Markdown unit it sits in: a paragraph, a list item or a table row
  that names a file under results/ (`results/h100/gemm_targets.md`, in backticks, parentheses or
  a link; from docs/ also ../results/...; `results/h100/x.{json,md}` and `results/h100/x.*` name
  each file they match), or a file of main's history as `git show COMMIT:PATH`
  (`git show 83a0d70:journal/h100/e491fd7/default.md`, braces and `*` as above), which is read
  through git: a commit this clone's history lacks (a shallow clone) or a path that commit does
  not have fails the check with its own line, never silently. A table row that names none takes the citations of its table's header
  row, or else, as a list item that names none, those of the paragraph just above its table or list (the caption, "Measured in
  `results/h100/x.md`:").
- Each cited figure must be in one of the files its unit cites, printed as the file prints it:
  in a .md, .csv, .log or .txt file the same digits as a number of their own (89.9 matches
  "89.9%" or "| 89.9 |", not 89.95); in a .json or .json.gz report a number that rounds to it
  at the figure's decimals, itself or as a percentage (0.8993 is 89.9%) or in thousandths
  (0.3518 ms is 351.8 µs); a ratio there only as one of the report's own ratios (its "vs_"
  fields: 1.0604 of the copy is 1.06×).
- A table row whose first cell names a variant in backticks (`gemm13_..._r232_at_streamk`, "..."
  standing for part of the name) is checked against the rows of the cited files that name that
  variant (a report's `name` cell), not against the whole file: a cell left from an older run
  does not pass because its number happens to be printed in another row. There a figure may be
  the row's number rounded to the figure's decimals (51.96% quoted as 52%). Cited files with no
  such row (a JSON report, a profile that names kernels otherwise) are searched whole.
- A figure that names its product's shape right before it ("2082×2082×385 at 82.7%", "1500³:
  118.0%", "1574×3844×169 from 93.9% to 100.9%"), and every figure of a table row whose first cell
  is a shape ("| 1500³ | … | 118.0% |"), is looked for in the cited files' sections of that shape
  (a report's "## gemm  float  2082x2082x385" and the rows under it; a JSON report's results of
  that "shape"), not in the whole file: a figure of an older run does not pass because another
  product's row prints the same number. Cited files with no section of that shape are searched
  whole.
- A ratio no file prints may be *derived*: it is checked instead as the quotient of two figures
  of one kind (times, bandwidths, TFLOP/s, percentages) quoted in its sentence, or in its table
  row: "1.93× (2.572 against 1.334 ms)", "| 75.4 µs | 31.1 µs | 2.4× |", allowing for the
  figures' own rounding (some quotient of values that round to them rounds to the ratio); a
  bare number paired with a figure, "2.237 against 1.517 ms", takes its unit. A unit whose
  ratios come from figures elsewhere (a table above, a file's medians) or are predictions says
  so with an HTML comment, `<!-- derived: the table's TFLOP/s at 4096³ -->` (a list's or
  table's caption says it for its items or rows): its ratios that are neither in its files nor
  quotients are not looked up.
- Not checked, because they are not readings of a file: a figure after "about", "~", "≈", "≥",
  "≤", "<", ">", "±", a sign ("+5%", "−3%"), "at least", "at most", "up to", "nearly", "almost",
  "roughly", "predicted", "under", "below", "above", "less than", "more than" (targets, bounds,
  rounded or derived statements); a figure followed by "=" (a definition: "100% = as fast");
  text in code spans and code blocks.
- A unit whose figures are not measurements of this project (the course documents' own
  timings, predictions, defaults and thresholds) says so with an HTML comment that names why,
  `<!-- unmeasured: the document's K40c times -->`; a table's caption says it for its rows.
- Every other unit with a figure must cite a file ("no results/ file cited" otherwise;
  --lenient only lists those, with --list).

Exit status 0 when every figure is cited and found; 1 with one line per figure not found
(file:line, the figure, the files it was looked for in) or not cited, and per history citation
that does not resolve; 2 on bad usage. Needs python3, and git for `git show` citations
(--history names the repository they are read from: by default --root's).
"""
import argparse
import fnmatch
import glob
import gzip
import json
import os
import re
import subprocess
import sys

PROG = "check_quoted_figures.py"

UNIT = r"(?:%|\s?(?:µs|us|ms|GB/s|TB/s|TFLOP/s)(?![A-Za-z/])|\ss(?![\w/])|×)"
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# a number, optionally a range "a–b" / "a-b" / "a to b", then the unit
FIGURE = re.compile(rf"(?<![\w.^/×])({NUM})(?:\s?(?:–|-|to)\s?({NUM}))?({UNIT})")
EXEMPT_BEFORE = re.compile(r"((?<![\w.])about|~|≈|≥|≤|<|>|±|\+|−|(?:^|[\s(])-|at least|at most|up to|nearly|almost|roughly|predicted|under|below|above|less than|more than)\s*\**$",
                           re.IGNORECASE)
EXEMPT_AFTER = re.compile(r"^\s*=")
CITATION = re.compile(r"(?:\.\./)?(results/[A-Za-z0-9_.=+/*-]+)(?:\{([A-Za-z0-9_.,]+)\})?")
# A file of main's history: `git show 83a0d70:journal/h100/x.md` (a commit of main, then a path).
GIT_CITATION = re.compile(r"git show ([0-9a-f]{7,40}):([A-Za-z0-9_.=+/*-]+)(?:\{([A-Za-z0-9_.,]+)\})?")
CODE_SPAN = re.compile(r"`[^`]*`")
# A product's shape as the pages write it: "2082×2082×385", "2000 × 1500 × 1000", "1500³"; reports
# print it "2082x2082x385" in their section headings and results.
SHAPE = re.compile(r"(?<![\w.×^])(\d+)(?:\s?×\s?(\d+)\s?×\s?(\d+)|³)(?![\d×²³])")
# Between a shape and the figure it anchors: nothing, a colon or comma, "at" or "from" after at most
# two words ("runs at", "went from"), and the first figure of a "from A to B".
ANCHOR_GAP = re.compile(rf"^\s*[:,]?\s*(?:(?:[A-Za-z]+\s+){{0,2}}(?:at|from)\s+)?"
                        rf"(?:(?:{NUM})(?:%|\s?(?:µs|us|ms))\s+to\s+)?$")
ROW_SHAPE = re.compile(r"^\|\s*(?:\*\*)?([^|`]*?)(?:\*\*)?\s*\|")


def shape_name(m):
    """The report's spelling ("2082x2082x385") of a SHAPE match."""
    return "x".join([m.group(1)] * 3 if m.group(2) is None else [m.group(1), m.group(2), m.group(3)])


def anchor(plain, start):
    """The shape a figure at `start` names right before it (ANCHOR_GAP), or None."""
    last = None
    for m in SHAPE.finditer(plain, 0, start):
        last = m
    if last is not None and ANCHOR_GAP.match(plain[last.end():start]):
        return shape_name(last)
    return None


def row_shape(text):
    """The shape a table row's first cell is ("| 1500³ |", "| 2000 × 1500 × 1000 |"), or None."""
    m = ROW_SHAPE.match(text)
    if not m:
        return None
    cell = m.group(1).strip()
    shape = SHAPE.match(cell)  # the shape, then nothing or a parenthesis ("4096×1×4096 (N = 1)")
    return shape_name(shape) if shape and re.fullmatch(r"\s*(?:\(.*\))?", cell[shape.end():]) else None


# A unit (or a table's caption) that says its figures are not this project's measurements: the
# course documents' own tables, predictions, settings. Invisible in the rendered page.
UNMEASURED = re.compile(r"<!--\s*unmeasured\b[^>]*-->")
# A unit whose ratios ("1.43×") are computed from figures quoted elsewhere (a table above, two
# runs), so no file prints them, says so: `<!-- derived: ratios of the table's TFLOP/s -->`.
DERIVED = re.compile(r"<!--\s*derived\b[^>]*-->")


def read_text(path):
    if path.startswith("git show "):
        data = HISTORY.blob(*path[len("git show "):].split(":", 1))
        if path.endswith(".gz"):
            data = gzip.decompress(data)
        return data.decode("utf-8", errors="replace")
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class History:
    """The files of main's history that `git show COMMIT:PATH` citations name, read through one
    `git cat-file --batch` process of the --history repository."""

    def __init__(self, repo):
        self.repo, self.proc, self.known, self.missing_commits = repo, None, {}, set()
        self.error = None

    def _start(self):
        if self.proc is None and self.error is None:
            try:
                inside = subprocess.run(["git", "-C", self.repo, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
            except OSError as e:
                self.error = f"git is not available ({e})"
                return
            # The folder must be a repository's top, not any folder inside one (a build folder in a
            # checkout would otherwise borrow the checkout's history).
            top = inside.stdout.strip()
            if inside.returncode != 0 or not top or os.path.realpath(top) != os.path.realpath(self.repo):
                self.error = f"{self.repo} is not a git repository"
                return
            self.proc = subprocess.Popen(["git", "-C", self.repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE)

    def _object(self, name):
        """(type, bytes) of an object name ("83a0d70:journal/x.md", "83a0d70^{commit}"), or None."""
        if name in self.known:
            return self.known[name]
        self._start()
        if self.proc is None:
            return None
        self.proc.stdin.write(name.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().decode().split()
        obj = None
        if len(header) == 3 and header[1] != "missing":
            data = self.proc.stdout.read(int(header[2]))
            self.proc.stdout.read(1)
            obj = (header[1], data)
        self.known[name] = obj
        return obj

    def problem(self, commit, path):
        """None when commit:path names a file (or a folder) of the history, else why not."""
        if self.error is None:
            self._start()
        if self.error is not None:
            return f"cannot read history: {self.error}"
        if self._object(commit + "^{commit}") is None:
            return (f"commit {commit} is not in the history of {self.repo} (a shallow clone? "
                    f"`git fetch --unshallow` fetches it)")
        if self._object(f"{commit}:{path.rstrip('/')}") is None:
            return f"{commit} has no {path}"
        return None

    def is_file(self, commit, path):
        obj = self._object(f"{commit}:{path}")
        return obj is not None and obj[0] == "blob"

    def blob(self, commit, path):
        return self._object(f"{commit}:{path}")[1]

    def glob(self, commit, pattern):
        """The files of commit that match a path pattern with "*" (one path component each)."""
        top = pattern.split("*")[0].rsplit("/", 1)[0]
        listing = subprocess.run(["git", "-C", self.repo, "ls-tree", "-r", "--name-only", commit, "--", top],
                                 capture_output=True, text=True).stdout.split("\n")
        return sorted(p for p in listing if p and fnmatch.fnmatch(p, pattern) and p.count("/") == pattern.count("/"))


HISTORY = History(".")


class Source:
    """A cited file's numbers, as it prints them (text) or as values (JSON)."""

    _cache = {}

    @classmethod
    def get(cls, path):
        if path not in cls._cache:
            cls._cache[path] = cls(path)
        return cls._cache[path]

    def __init__(self, path, text=None):
        self.path = path
        self.is_json = path.endswith(".json") or path.endswith(".json.gz")
        text = read_text(path) if text is None else text
        self.shapes = {}
        self.lines = [] if self.is_json else text.splitlines()
        self.tokens = number_tokens(text)
        self.values, self.ratios, self.rounded, self.doc = [], [], {}, None
        if self.is_json:
            self.values = [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)]
            try:
                self.doc = json.loads(text)
                self.ratios = list(ratio_fields(self.doc))
            except ValueError:
                pass

    def of_shape(self, shape):
        """A Source of this file's sections of one product shape ("2082x2082x385": a report's
        "## ..." headings that name it and the lines under them; a JSON report's results of that
        shape), or None where the file has none."""
        if shape not in self.shapes:
            part = None
            if self.is_json:
                results = self.doc.get("results") if isinstance(self.doc, dict) else None
                if isinstance(results, list):
                    mine = [r for r in results if isinstance(r, dict) and r.get("shape") == shape]
                    part = json.dumps({"results": mine}) if mine else None
            else:
                heading = re.compile(r"^#+\s.*(?<![\w.])" + re.escape(shape) + r"(?![\w.])")
                keep, out = False, []
                for ln in self.lines:
                    if ln.startswith("#"):
                        keep = bool(heading.match(ln))
                    if keep:
                        out.append(ln)
                part = "\n".join(out) if out else None
            self.shapes[shape] = None if part is None else Source(f"{self.path} ({shape})", part)
        return self.shapes[shape]

    def rows_of(self, key):
        """The numbers of the lines that name `key` (a variant's name as a Markdown table row prints
        it, `name`), or None where none does (or the file is a JSON report)."""
        if self.is_json:
            return None
        rows = [ln for ln in self.lines if key.search(ln)]
        return number_tokens("\n".join(rows)) if rows else None

    def has(self, figure, ratio=False):
        if figure in self.tokens:
            return True
        if not self.is_json:
            return False
        decimals = decimals_of(figure)
        key = (decimals, ratio)
        if key not in self.rounded:
            if ratio:  # a report's own ratios only: any of its thousands of numbers rounds to most ratios
                self.rounded[key] = {round(x, decimals) for x in self.ratios}
            else:
                self.rounded[key] = {round(x * scale, decimals) for x in self.values for scale in (1.0, 100.0, 1000.0)}
        return float(figure) in self.rounded[key]


def decimals_of(number):
    """The digits a printed number has after its point ("89.95" has 2, "52" none)."""
    return len(number.split(".")[1]) if "." in number else 0


def number_tokens(text):
    return set(t.replace(",", "") for t in re.findall(rf"(?<![\d.])(?:{NUM})(?![\d])", text))


# A table row's subject: its first cell's name in backticks (a variant, "`gemm13_..._r232_at`",
# "..." standing for part of the name). Its figures are looked for in the rows of the cited files
# that name it, where any does, so a cell left from an older run is not found elsewhere in the file.
ROW_KEY = re.compile(r"^\|\s*`([A-Za-z_][A-Za-z0-9_.]*)`")


def row_key(text):
    """(the name, a pattern for it in a report's rows), or None where the row names no variant."""
    m = ROW_KEY.match(text)
    if not m or not re.search(r"[_.]", m.group(1)):
        return None
    parts = [re.escape(p) for p in m.group(1).split("...")]
    return m.group(1), re.compile("`" + "[^`]*".join(parts) + "`")


def in_row(figure, tokens):
    """A figure is in a row's numbers as printed, or rounded to its decimals (a table may quote
    51.96% as 52%)."""
    if figure in tokens:
        return True
    decimals = decimals_of(figure)
    return any(round(float(t), decimals) == float(figure) for t in tokens if decimals_of(t) > decimals)


def ratio_fields(node):
    """The values of a report's ratio fields (vs_library, vs_ceiling: "vs_" keys)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k.startswith("vs_") and isinstance(v, (int, float)) and not isinstance(v, bool):
                yield float(v)
            else:
                yield from ratio_fields(v)
    elif isinstance(node, list):
        for v in node:
            yield from ratio_fields(v)


def units(lines):
    """Yields (first line number, text, kind) for paragraphs, list items and table rows; code
    blocks and headings are left out."""
    buf, start, kind, in_code = [], 0, None, False

    def flush():
        nonlocal buf, kind
        if buf:
            yield start, " ".join(buf), kind
        buf, kind = [], None

    for i, line in enumerate(lines, 1):
        s = line.strip()
        if s.startswith("```"):
            yield from flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if not s or s.startswith("#"):
            yield from flush()
            continue
        if s.startswith("|"):
            yield from flush()
            yield i, s, "row"
            continue
        if re.match(r"^([-*]|\d+\.)\s", s):
            yield from flush()
            start, kind = i, "item"
        elif not buf:
            start, kind = i, "para"
        buf.append(s)
    yield from flush()


def citations(text, root, problems=None):
    """The files a unit cites: paths under root, and "git show COMMIT:PATH" for history files. A
    history citation that does not resolve is added to problems (once per unit)."""
    found = []
    for m in GIT_CITATION.finditer(text):
        commit, rel = m.group(1), m.group(2).rstrip(".,;:)")
        names = [m.group(2) + alt for alt in m.group(3).split(",")] if m.group(3) else [rel]
        for name in names:
            why = HISTORY.problem(commit, name.split("*")[0].rsplit("/", 1)[0] if "*" in name else name)
            if why is not None:
                if problems is not None:
                    problems.append(f"`git show {commit}:{name}`: {why}")
                continue
            paths = HISTORY.glob(commit, name) if "*" in name else [name]
            found += [f"git show {commit}:{p}" for p in paths if HISTORY.is_file(commit, p)]
    text = GIT_CITATION.sub(" ", text)  # their paths are not working-tree citations
    for m in CITATION.finditer(text):
        # results/h100/x.{json,md} names both; results/h100/x.* every file that matches
        names = [m.group(1) + alt for alt in m.group(2).split(",")] if m.group(2) else [m.group(1).rstrip(".,;:)")]
        for rel in names:
            paths = sorted(glob.glob(os.path.join(root, rel))) if "*" in rel else [os.path.join(root, rel)]
            for path in paths:
                if os.path.isfile(path):
                    found.append(os.path.relpath(path, root))
    return found


# After a ratio's "×": the end, a space or punctuation, and then no number or model ("4096× 4096",
# "2× H200" are a shape and a count).
RATIO_AFTER = re.compile(r"^(?:$|[\s,.;:!?)\]*|'\"<](?!\s*(?:\d|[A-Z]+\d)))")


def is_ratio(plain, m):
    """A number directly followed by "×" is a ratio unless it is part of a shape or count:
    "4096×4096", "128×128×16", "M×1", "2× H200" are not figures."""
    if plain[: m.start()].rstrip().endswith("×"):
        return False
    return bool(RATIO_AFTER.match(plain[m.end():]))


# A ratio's window for its quotient: its sentence (to ". ", "; ", "! ", "? "), in a table its row.
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+")
# The figures a quotient is formed from: a number with a unit of time, bandwidth, throughput or a
# percentage; a bare number paired with one ("2.237 against 1.517 ms", "36.8 / 31.1 µs") takes its
# unit.
SCALE = {"s": ("time", 1e6), "ms": ("time", 1e3), "µs": ("time", 1.0), "us": ("time", 1.0),
         "GB/s": ("bytes", 1.0), "TB/s": ("bytes", 1e3), "TFLOP/s": ("flops", 1.0), "%": ("share", 1.0)}
OPERAND_UNIT = r"(?:\s?(?:µs|us|ms|GB/s|TB/s|TFLOP/s)|\ss)(?![\w/])|%"
OPERAND = re.compile(rf"(?<![\w.^/×])(?P<num>{NUM})(?P<unit>{OPERAND_UNIT})?"
                     rf"(?=\s*(?:against|vs\.?|/|to)\s*(?:{NUM})(?P<paired>{OPERAND_UNIT}))?")


def operands(window):
    """The figures in a window a quotient may come from: (dimension, value, half its last digit),
    in a common scale per dimension."""
    found = []
    for m in OPERAND.finditer(window):
        if window[m.end():].startswith("×"):
            continue  # a ratio or a shape, not an operand
        unit = (m.group("unit") or m.group("paired") or "").strip()
        if unit:
            dim, scale = SCALE[unit]
            digits = m.group("num").replace(",", "")
            found.append((dim, float(digits) * scale, 0.5 * 10.0 ** -decimals_of(digits) * scale))
    return found


def is_quotient(ratio, window):
    """Whether a ratio is the quotient of two figures of one dimension in its window: the ratio
    as rounded and the quotient of the figures as rounded overlap."""
    r, hr = float(ratio), 0.5 * 10.0 ** -decimals_of(ratio) + 1e-12
    ops = operands(window)
    for i, (da, a, ha) in enumerate(ops):
        for j, (db, b, hb) in enumerate(ops):
            if i != j and da == db and b - hb > 0 and (a - ha) / (b + hb) <= r + hr and (a + ha) / (b - hb) >= r - hr:
                return True
    return False


def figures(text, row=False):
    """(figure text, shown, how, shape) of each checked figure in a unit's text, code spans blanked;
    how is "quotient" for a ratio its window derives, else "file"; shape the product the figure
    names (anchor, row_shape), else None."""
    plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    whole_row = row_shape(text) if row else None
    for m in FIGURE.finditer(plain):
        if EXEMPT_BEFORE.search(plain[: m.start()]) or EXEMPT_AFTER.match(plain[m.end():]):
            continue
        ratio = m.group(3) == "×"
        if ratio and not is_ratio(plain, m):
            continue
        window = plain
        if ratio and not row:
            starts = [0] + [e.end() for e in SENTENCE_END.finditer(plain) if e.end() <= m.start()]
            end = SENTENCE_END.search(plain, m.end())
            window = plain[starts[-1]: end.start() if end else len(plain)]
        # a date, a size like 2^28 or 4096x4096, a version (13.0): none has a unit, so none matches
        shape = whole_row or (None if row else anchor(plain, m.start()))
        for g in (m.group(1), m.group(2)):
            if g:
                g = g.replace(",", "")
                yield g, m.group(0), "quotient" if ratio and is_quotient(g, window) else "file", shape


def check_file(md, root, rel_name, strict, dump=None):
    problems, uncited, checked = [], [], 0
    with open(md, encoding="utf-8") as f:
        lines = f.read().splitlines()
    caption, caption_unmeasured, caption_derived = [], False, False  # the paragraph above the current table or list
    header, last_kind = [], None  # the citations of the current table's header row
    item_caption = []  # the citations of the list item a table sits in
    for line_no, text, kind in units(lines):
        unresolved = []
        cites = own = citations(text, root, unresolved)
        problems += [f"{rel_name}:{line_no}: {u}" for u in unresolved]
        marks = CODE_SPAN.sub("", text)  # a marker quoted in a code span is not one
        unmeasured = bool(UNMEASURED.search(marks))
        derived = bool(DERIVED.search(marks))
        if kind == "row" and last_kind != "row":
            header = cites
        last_kind = kind
        if kind == "item":
            item_caption = cites  # a table inside a list item takes the item's citations
        if kind in ("row", "item"):
            unmeasured = unmeasured or (not cites and caption_unmeasured)
            derived = derived or caption_derived
            cites = cites or (header or item_caption if kind == "row" else []) or caption
        else:
            caption, caption_unmeasured, caption_derived, item_caption = cites, unmeasured, derived, []
        if unmeasured and not own:
            continue
        figs = list(figures(text, row=kind == "row"))
        if derived:  # the unit's ratios are computed from figures, not printed in a file
            figs = [f for f in figs if f[2] == "quotient" or not f[1].endswith("×")]
        for fig, shown, how, _ in figs:
            if how == "quotient":  # checked against the figures it is formed from
                checked += 1
                if dump is not None:
                    dump.append({"md": rel_name, "line": line_no, "figure": fig, "cites": [], "how": how})
        figs = [(fig, shown, shape) for fig, shown, how, shape in figs if how == "file"]
        if not figs:
            continue
        if not cites:
            uncited.append((line_no, [f for _, f, _ in figs]))
            continue
        sources = [Source.get(c if c.startswith("git show ") else os.path.join(root, c)) for c in cites]
        key = row_key(text) if kind == "row" else None
        rows = [(c, s, s.rows_of(key[1])) for c, s in zip(cites, sources)] if key else []
        keyed = [(c, r) for c, _, r in rows if r is not None]
        unkeyed = [s for _, s, r in rows if r is None]  # JSON, or no such row
        for fig, shown, shape in figs:
            checked += 1
            if dump is not None:
                dump.append({"md": rel_name, "line": line_no, "figure": fig, "cites": cites, "how": "file",
                             "shape": shape})
            parts = [] if keyed or not shape else [(c, p) for c, p in ((c, s.of_shape(shape)) for c, s in zip(cites, sources)) if p]
            if keyed:  # a variant's row: in the rows of the cited files that name it (or in a file with no such rows)
                if not any(in_row(fig, r) for _, r in keyed) and not any(s.has(fig, shown.endswith("×")) for s in unkeyed):
                    problems.append(f"{rel_name}:{line_no}: {shown.strip()}: {fig} is not in the rows of "
                                    f"{key[0]} in {', '.join(c for c, _ in keyed)}")
            elif parts:  # the product's sections of the cited files that have it
                if not any(p.has(fig, shown.endswith("×")) for _, p in parts):
                    problems.append(f"{rel_name}:{line_no}: {shown.strip()}: {fig} is not in the {shape} sections of "
                                    f"{', '.join(dict.fromkeys(c for c, _ in parts))}")
            elif not any(s.has(fig, shown.endswith("×")) for s in sources):
                problems.append(f"{rel_name}:{line_no}: {shown.strip()}: {fig} is not in {', '.join(cites)}")
    if strict:
        for line_no, figs in uncited:
            problems.append(f"{rel_name}:{line_no}: {', '.join(f.strip() for f in figs)}: no results/ file cited")
    return problems, uncited, checked


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description="Checks the figures README.md and docs/*.md quote against results/.")
    ap.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/*.md under --root)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the repository (default: this script's)")
    ap.add_argument("--list", action="store_true", help="also list the figures no results/ file cites")
    ap.add_argument("--lenient", action="store_true",
                    help="check cited figures only; list uncited ones with --list instead of failing on them")
    ap.add_argument("--dump", metavar="FILE.json", help="write every checked figure (file, line, figure, cited files)")
    ap.add_argument("--history", metavar="DIR", help="the git repository `git show` citations are read from (default: --root)")
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    HISTORY.repo = os.path.abspath(a.history or root)
    files = a.files or ([os.path.join(root, "README.md")]
                        + sorted(p for p in [os.path.join(root, "CONTRIBUTING.md")] if os.path.isfile(p))
                        + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)))
    problems, total, dump = [], 0, []
    for md in files:
        if not os.path.isfile(md):
            sys.stderr.write(f"{PROG}: error: {md}: no such file\n")
            return 2
        rel = os.path.relpath(md, root)
        p, uncited, n = check_file(md, root, rel, not a.lenient, dump)
        problems += p
        total += n
        if a.list:
            for line_no, figs in uncited:
                print(f"uncited {rel}:{line_no}: {', '.join(f.strip() for f in figs)}")
    if a.dump:
        with open(a.dump, "w", encoding="utf-8") as f:
            json.dump(dump, f, indent=1)
    for p in problems:
        print(p)
    print(f"{PROG}: {total} cited figures checked in {len(files)} files, {len(problems)} not found or not cited")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
