#!/usr/bin/env python3
"""ctest code_comments_selftest: scripts/check_code_comments.py finds a measured figure, a commit id
and a journal/ path in a comment, and nothing in code, strings or an unmeasured paragraph; an
allow-list entry lets one offender pass and a stale one is reported without failing.

usage: test_check_code_comments.py SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

from checks import check, done
from scratch import scratch_args

src, work = scratch_args("test_check_code_comments.py", os.path.join("scripts", "check_code_comments.py"))
script = os.path.join(src, "scripts", "check_code_comments.py")


def run(*args):
    return subprocess.run([sys.executable, script, "--root", work] + list(args), capture_output=True, text=True)


kernel = os.path.join(work, "k.cuh")
with open(kernel, "w", encoding="utf-8") as f:
    f.write('// k — a step (docs/x.md, "k").\n'                                  # 1
            "//\n"                                                                # 2
            "// It ran at 91.3% of cuBLAS at 4096³ on the H100.\n"               # 3 figure
            "// As this comment said at commit dc72026.\n"                        # 4 commit id
            "// The trials are in journal/h100/x.md.\n"                           # 5 journal path
            "//\n"                                                                # 6
            "// The document's K40c times: 150 → 56 ms.\n"                        # 7 the course's own
            "// Padding gives about 2× fewer wavefronts, a default of 2%.\n"      # 8 exempt
            'const char* fmt = "12.3 us 97.3% abc1234";  // "1.5 ms" as printed\n'  # 9 string, quoted
            "/* A block comment: 3.05 ms\n"                                      # 10 figure
            "   in a block. */ int x = 0x7fffffff;\n"                             # 11
            "int y = 1;\n"                                                       # 12
            "// A model constant, unmeasured: 0.7 µs a tile.\n")                 # 13 marked
r = run("k.cuh")
check(r.returncode == 1, f"offenders pass: exit {r.returncode}\n{r.stdout}{r.stderr}")
for want in ("k.cuh:3: figure 91.3%", "k.cuh:4: commit id dc72026", "k.cuh:5: journal/ path", "k.cuh:10: figure 3.05 ms"):
    check(want in r.stdout, f"not reported: {want}\n{r.stdout}")
for line in (1, 2, 6, 7, 8, 9, 11, 12, 13):
    check(f"k.cuh:{line}:" not in r.stdout, f"line {line} reported:\n{r.stdout}")
check("4 offending comment lines" in r.stdout, f"count:\n{r.stdout}")

allow = os.path.join(work, "allow.txt")
with open(allow, "w", encoding="utf-8") as f:
    f.write("# comment\nk.cuh:3: owned by issue 0, pending\nk.cuh:4: x\nk.cuh:5: x\nk.cuh:10: x\nk.cuh:99: gone\n")
r = run("--allow", allow, "--list", "k.cuh")
check(r.returncode == 0, f"allowed offenders fail: exit {r.returncode}\n{r.stdout}{r.stderr}")
check("[allowed: owned by issue 0, pending]" in r.stdout, f"--list does not show the allowed:\n{r.stdout}")
check("k.cuh:99: stale allow-list entry" in r.stdout, f"a stale entry is not reported:\n{r.stdout}")

with open(os.path.join(work, "m.cpp"), "w", encoding="utf-8") as f:
    f.write("// (Figures in this file's comments are unmeasured: a test's inputs.)\n// 2% noise, 10 ms.\n")
r = run("m.cpp")
check(r.returncode == 0, f"a file marked unmeasured fails:\n{r.stdout}")

done("check_code_comments self-test: {n} failures")
