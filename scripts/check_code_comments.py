#!/usr/bin/env python3
"""Checks that code comments keep the lesson, not the measurements: no measured figure, no commit
id and no journal/ path in a comment of a tracked *.cu, *.cuh, *.hpp, *.cpp or *.h file.

usage: scripts/check_code_comments.py [--root DIR] [--allow FILE] [--list] [FILE ...]

- A *figure* is what scripts/check_quoted_figures.py calls one (a number with %, µs, us, ms, s,
  GB/s, TB/s, TFLOP/s, or a ratio "1.43×"), with its exemptions ("about", "~", "≤", "at most",
  "up to", ...), and "default" or "e.g." before it; a figure inside quotes (a format example,
  "12.3 us") is none. Where a number matters, the comment points to the doc's section instead.
- A figure that is not this project's measurement (a course document's own time, a threshold,
  a test's synthetic input, a model constant) is allowed in a comment paragraph (comment lines
  up to an empty one) that says `unmeasured`, or that names the course documents' numbers as
  such ("K40c", "table 3.2": the lesson's own table), or anywhere in a file with a comment that
  says "figures in this file's comments are unmeasured: WHY".
- A *commit id* is a word of 7 to 40 hex digits with a letter and a digit (`dc72026`); history is
  cited in docs/ (`git show COMMIT:PATH`), not in code. A `journal/` path names the folder that
  left the working tree.
- --allow FILE (default tests/code_comments_allow.txt): lines `PATH:LINE: REASON` for offenders
  someone else is removing; each is reported as allowed, and one that no longer matches is
  reported as stale (not a failure). Lines starting with # are comments.

Exit status 0 when every offender is allowed; 1 with one line per offender (path:line, what, the
comment); 2 on bad usage. --list also prints the allowed ones. Needs python3 and git.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_quoted_figures as figures_check  # noqa: E402

PROG = "check_code_comments.py"
EXTENSIONS = (".cu", ".cuh", ".hpp", ".cpp", ".h")
COMMIT = re.compile(r"(?<![\w./-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
JOURNAL = re.compile(r"(?<![\w/])journal/")
QUOTED = re.compile(r"\"[^\"]*\"")
MORE_EXEMPT = re.compile(r"(?:default|e\.g\.)\s*\(?\s*$", re.IGNORECASE)
FILE_MARK = re.compile(r"figures in this file's comments are unmeasured\s*:", re.IGNORECASE)
PARAGRAPH_MARK = re.compile(r"unmeasured|K40c|\btable 3\.\d", re.IGNORECASE)


def own_line(text, i):
    """Whether the comment starting at i is alone on its line (no code before it)."""
    return not text[text.rfind("\n", 0, i) + 1:i].strip()


def comments(text):
    """(line number, text, alone) of every comment line (// and /* */), string and character
    literals skipped; alone: no code before it on its line (a block comment's later lines are)."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith('R"', i) and re.match(r'R"[^()\s\\]{0,16}\(', text[i:]):
            delim = re.match(r'R"([^()\s\\]{0,16})\(', text[i:]).group(1)
            end = text.find(")" + delim + '"', i)
            end = n if end < 0 else end + len(delim) + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j], own_line(text, i)))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part, k > 0 or own_line(text, i)))
            line += text.count("\n", i, j)
            i = j + 2
        else:
            i += 1
    return out


def offences(text):
    """(line, what, comment) of each offending comment line of a file's text."""
    found = []
    lines = comments(text)
    file_exempt = any(FILE_MARK.search(c) for _, c, _ in lines)
    # paragraphs: comment lines alone on consecutive lines, broken by an empty comment line; a
    # comment after code on its line is a paragraph of its own
    paragraph, marked, last, last_alone = 0, {}, None, False
    of = []
    for line, c, alone in lines:
        if last is None or line != last + 1 or not c.strip() or not alone or not last_alone:
            paragraph += 1
        last, last_alone = line, alone
        of.append(paragraph)
        marked[paragraph] = marked.get(paragraph, False) or bool(PARAGRAPH_MARK.search(c))
    for (line, c, _), par in zip(lines, of):
        what = []
        what += [f"commit id {m.group(0)}" for m in COMMIT.finditer(c)]
        if JOURNAL.search(c):
            what.append("journal/ path")
        if not file_exempt and not marked[par]:
            plain = QUOTED.sub(lambda m: " " * len(m.group(0)), c)
            for fig, shown, *_ in figures_check.figures(plain):
                start = plain.find(shown)
                if start >= 0 and MORE_EXEMPT.search(plain[:start]):
                    continue
                what.append(f"figure {shown.strip()}")
        if what:
            found.append((line, ", ".join(dict.fromkeys(what)), c.strip()))
    return found


def tracked(root):
    r = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return sorted(p for p in r.stdout.split("\n") if p.endswith(EXTENSIONS))


def load_allow(path):
    allow = {}
    if path and os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                s = raw.strip()
                if not s or s.startswith("#"):
                    continue
                m = re.match(r"^(\S+?):(\d+):\s*(.+)$", s)
                if not m:
                    sys.stderr.write(f"{PROG}: error: {path}:{n}: not PATH:LINE: REASON\n")
                    sys.exit(2)
                allow[(m.group(1), int(m.group(2)))] = m.group(3)
    return allow


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG, description="No measured figures, commit ids or journal/ paths in code comments.")
    ap.add_argument("files", nargs="*", help="files to check, relative to --root (default: every tracked source file there)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--allow", help="the allow-list (default: ROOT/tests/code_comments_allow.txt)")
    ap.add_argument("--list", action="store_true", help="also print the allowed offenders")
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    files = [os.path.relpath(f, root) if os.path.isabs(f) else f for f in a.files] if a.files else tracked(root)
    if files is None:
        sys.stderr.write(f"{PROG}: error: {root} is not a git checkout (pass the files instead)\n")
        return 2
    allow = load_allow(a.allow or os.path.join(root, "tests", "code_comments_allow.txt"))
    bad, allowed, used = [], [], set()
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, what, c in offences(text):
            entry = f"{rel}:{line}: {what}: {c[:160]}"
            if (rel, line) in allow:
                used.add((rel, line))
                allowed.append(f"{entry} [allowed: {allow[(rel, line)]}]")
            else:
                bad.append(entry)
    for e in bad:
        print(e)
    if a.list:
        for e in allowed:
            print(e)
    for (rel, line), why in sorted(allow.items()):
        if (rel, line) not in used:
            print(f"{rel}:{line}: stale allow-list entry ({why}): no offence there now")
    print(f"{PROG}: {len(files)} files, {len(bad)} offending comment lines, {len(allowed)} allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
