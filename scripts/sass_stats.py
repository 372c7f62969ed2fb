#!/usr/bin/env python3
"""Static FFMA statistics of the functions of a cuobjdump -sass listing whose names match a pattern.

    cuobjdump -sass BINARY > sass.txt      (on a machine with the CUDA toolkit's cuobjdump)
    scripts/sass_stats.py sass.txt 'kernel_tmaILi128ELi256E.*ELi1EE'

Per function it prints:
  * its instruction count, its FFMAs and their share, its shared loads (LDS), the other opcodes
    by count;
  * the FFMAs' stall counts and yield bits, read from each instruction's control bits (the
    second 64-bit word: stall cycles in bits 41-44, yield in bit 45; the layout public
    disassembler work reports for Volta and newer, not an NVIDIA document);
  * reuse hits per FFMA: source operands that the previous FFMA flagged `.reuse` in the same slot;
  * bank coincidences among the source registers read from the file (not from the reuse cache),
    per FFMA: how often two (pair) or three (triple) of them share a bank under a 2-bank (reg % 2)
    and a 4-bank (reg % 4) model.

The bank counts are a model, not a measurement: they compare the register assignment ptxas gave
one kernel's loop with another's (docs/sgemm-ladder.md, "An in-kernel fixup", quotes them beside
the measured times). Exit status 0; 2 on bad usage.
"""
import collections
import re
import sys

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?);\s*/\* 0x[0-9a-f]{16} \*/")
CONTROL = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/")
REGISTER = re.compile(r"\bR(\d+)(\.reuse)?")


def parse(path, want):
    """{function name: [(instruction text, its control word)]} for the functions want() keeps: the
    control bits are in the second 64-bit word of each instruction, on the line after its text."""
    fns, cur, pending = {}, None, None
    with open(path, errors="replace") as f:
        for line in f:
            m = FUNCTION.search(line)
            if m:
                cur = m.group(1) if want(m.group(1)) else None
                if cur:
                    fns[cur] = []
                pending = None
                continue
            if cur is None:
                continue
            m = INSTRUCTION.search(line)
            if m:
                pending = m.group(1).strip()
                continue
            m = CONTROL.search(line)
            if m and pending is not None:
                fns[cur].append((pending, int(m.group(1), 16)))
                pending = None
    return fns


def stats(instructions):
    counts, stalls = collections.Counter(), collections.Counter()
    prev_reuse, yields, ffma = {}, 0, 0
    for text, hi in instructions:
        words = text.split()
        op = words[1] if text.startswith("@") and len(words) > 1 else words[0]
        base = op.split(".")[0]
        counts[base] += 1
        if base != "FFMA":
            prev_reuse = {}
            continue
        ffma += 1
        stalls[(hi >> 41) & 0xF] += 1
        yields += (hi >> 45) & 1
        operands = text[text.index(op) + len(op):].split(",")
        sources = []
        for slot, o in enumerate(operands[1:4]):
            m = REGISTER.search(o)
            if m:
                sources.append((slot, int(m.group(1)), bool(m.group(2))))
        from_file = [r for slot, r, _ in sources if prev_reuse.get(slot) != r]
        prev_reuse = {slot: r for slot, r, flagged in sources if flagged}
        counts["reuse_hits"] += len(sources) - len(from_file)
        for banks, name in ((2, "b2"), (4, "b4")):
            per_bank = collections.Counter(r % banks for r in from_file)
            worst = max(per_bank.values()) if per_bank else 0
            counts[f"{name}_pair"] += worst >= 2
            counts[f"{name}_triple"] += worst >= 3
    return counts, stalls, yields, ffma


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: sass_stats.py SASS.txt NAME_PATTERN\n")
        return 2
    path, pattern = argv
    for name, ins in parse(path, lambda n: re.search(pattern, n) is not None).items():
        c, sh, y, ffma = stats(ins)
        total = len(ins)
        other = ", ".join(f"{k} {v}" for k, v in c.most_common(14)
                          if k != "FFMA" and not k.startswith(("b2", "b4", "reuse")))
        print(f"## {name[:160]}")
        print(f"  instructions {total}, FFMA {ffma} ({ffma / max(total, 1):.3f}), LDS {c['LDS']}, other top: {other}")
        if ffma:
            print(f"  FFMA stall counts {dict(sorted(sh.items()))}, yield bits {y}, reuse hits/FFMA {c['reuse_hits'] / ffma:.2f}")
            print(f"  bank coincidences among file reads per FFMA: 2-bank pair {c['b2_pair'] / ffma:.3f} "
                  f"triple {c['b2_triple'] / ffma:.3f}; 4-bank pair {c['b4_pair'] / ffma:.3f} triple {c['b4_triple'] / ffma:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
