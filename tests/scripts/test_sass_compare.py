#!/usr/bin/env python3
"""ctest sass_compare: scripts/sass_compare.py (the SASS gate: two builds' machine code compared
function by function) over synthetic cuobjdump -sass listings: the same code at other addresses,
encodings and anonymous-namespace hashes is identical (exit 0); one changed instruction, a
function missing from one build and one only in the other are each named (exit 1). And a cubin's
.nv.info records: a symbol index after one-byte and empty records is read as its symbol's name
(an index depends on the order of the cubin's symbol table, the name does not).

usage: test_sass_compare.py SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

from checks import done, fail
from scratch import scratch_args

src, work = scratch_args("test_sass_compare.py", os.path.join("scripts", "sass_compare.py"))
script = os.path.join(src, "scripts", "sass_compare.py")


def ins(addr, text, enc):
    return f"        /*{addr:04x}*/                   {text} ;   /* 0x{enc:016x} */\n"


def listing(base, enc, anon_hash, ffma, extra=""):
    name = f"_ZN12_GLOBAL__N__{anon_hash}_12_gemm_list_cu_{anon_hash}6kernelEv"
    return ("\tarch = sm_90a\n\t\tFunction : " + name + "\n\t.headerflags    @\"EF_CUDA_SM90\"\n"
            + ins(base, "LDS.128 R2, [R0]", enc) + ins(base + 16, ffma, enc + 1) + ins(base + 32, "EXIT", enc + 2)
            + extra)


old = listing(0, 0x100, "1a2b3c4d", "FFMA R10, R2, R4, R10")
same = listing(0x40, 0x900, "9e8d7c6b", "FFMA R10, R2, R4, R10")
changed = listing(0, 0x100, "1a2b3c4d", "FFMA R10, R4, R2, R10")
other = "\t\tFunction : only_here\n" + ins(0, "EXIT", 0x5)


def run(a, b):
    pa, pb = os.path.join(work, "a.txt"), os.path.join(work, "b.txt")
    open(pa, "w").write(a)
    open(pb, "w").write(b)
    return subprocess.run([sys.executable, script, pa, pb], capture_output=True, text=True)


r = run(old, same)
if r.returncode != 0 or "1 functions identical, 0 differ" not in r.stdout:
    fail(f"the same code at other addresses is not identical:\n{r.stdout}{r.stderr}")
r = run(old, changed)
if r.returncode != 1 or "differ: sm_90a" not in r.stdout:
    fail(f"a changed instruction is not named:\n{r.stdout}{r.stderr}")
r = run(old + other, old)
if r.returncode != 1 or "only old: sm_90a only_here" not in r.stdout:
    fail(f"a function of one build only is not named:\n{r.stdout}{r.stderr}")
r = run(old, old + other)
if r.returncode != 1 or "only in the new build" not in r.stdout or "only new:" not in r.stdout:
    fail(f"a function of the new build only is not named:\n{r.stdout}{r.stderr}")

# .nv.info records as nvcc writes them, each on 4 bytes: EIFMT_NVAL (padding), EIFMT_BVAL (a byte
# and padding), EIFMT_HVAL, then an EIFMT_SVAL PARAM_CBANK whose payload starts with symbol 1.
sys.path.insert(0, os.path.join(src, "scripts"))
import sass_compare  # noqa: E402

elf = object.__new__(sass_compare.Elf)
elf.data = (bytes.fromhex("01540000" "024c0100" "035f0101" "040a0800") + (1).to_bytes(4, "little")
            + bytes.fromhex("10022400"))
elf.symbols = ["", "kernel_constants"]
records = elf.info_records({"off": 0, "size": len(elf.data), "type": 0})
if records[-1] != (0x04, 0x0A, ("kernel_constants", bytes.fromhex("10022400"))) or len(records) != 4:
    fail(f".nv.info records read out of step: {records}")
done("sass_compare self-test: {n} failures")
