#!/usr/bin/env python3
"""ctest sass_stats: scripts/sass_stats.py over a synthetic cuobjdump -sass listing whose counts are
known: three FFMAs (one source read from the reuse cache; two with all file reads in one bank of
two, one with none), their stall counts and yield bits, a function the pattern leaves out.

usage: test_sass_stats.py SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

from checks import check, done, fail
from scratch import scratch_args

src, work = scratch_args("test_sass_stats.py", os.path.join("scripts", "sass_stats.py"))


def control(stall, yld):
    return f"0x{(stall << 41) | (yld << 45):016x}"


def ins(addr, text, stall=1, yld=1):
    return (f"        /*{addr:04x}*/                   {text} ;   /* 0x000000000000000a */\n"
            f"                                                  /* {control(stall, yld)} */\n")


listing = ("\t\tFunction : kernel_wanted\n" + ins(0, "LDS.128 R2, [R0]") + ins(16, "FFMA R10, R2, R4, R10")
           + ins(32, "FFMA R11, R3.reuse, R5, R11", stall=2) + ins(48, "FFMA R12, R3, R6, R13", yld=0)
           + ins(64, "EXIT") + "\t\tFunction : kernel_other\n" + ins(0, "FFMA R1, R2, R3, R4"))
path = os.path.join(work, "sass.txt")
with open(path, "w") as f:
    f.write(listing)
r = subprocess.run([sys.executable, os.path.join(src, "scripts", "sass_stats.py"), path, "wanted"],
                   capture_output=True, text=True)
out = r.stdout
want = ["## kernel_wanted", "instructions 5, FFMA 3 (0.600), LDS 1", "FFMA stall counts {1: 2, 2: 1}, yield bits 2",
        "reuse hits/FFMA 0.33", "2-bank pair 0.667 triple 0.667; 4-bank pair 0.667 triple 0.000"]
for w in want:
    check(w in out, w)
if "kernel_other" in out or r.returncode != 0:
    fail("the other function or a failing exit")
bad = subprocess.run([sys.executable, os.path.join(src, "scripts", "sass_stats.py"), path], capture_output=True, text=True)
if bad.returncode != 2:
    fail(f"bad usage exits {bad.returncode}, not 2")
print(out)
done("sass_stats self-test: {n} failures")
