#!/usr/bin/env python3
"""A grader build (-DKL_LADDER=OFF) links handwritten/without_ladder.cpp in place of the ladder's
list files: it must define every list the list files define, in every type, or compare does not
link there (a family added to the ladder and forgotten here). Compares the explicit instantiations
`template std::vector<...> NAME_handwritten<TYPE>();` of handwritten/*/*.cu with those of
without_ladder.cpp, both ways. usage: check_without_ladder.py SOURCE_DIR [--selftest]. Exit 1 on a
mismatch. --selftest: the check must fail, naming the list, on a copy of the tree whose
without_ladder.cpp lacks one instantiation, and pass on the copy as it is."""
import pathlib
import re
import shutil
import sys
import tempfile

INST = re.compile(r"^template\s+std::vector<[^;]*>\s+(\w+_handwritten)<(\w+)>\(\);", re.M)


def instantiations(paths):
    found = set()
    for p in paths:
        found |= set(INST.findall(p.read_text()))
    return found


def check(root):
    lists = instantiations(sorted(root.glob("handwritten/*/*.cu")))
    stubs = instantiations([root / "handwritten" / "without_ladder.cpp"])
    if len(lists) < 10:
        print(f"check_without_ladder.py: only {len(lists)} lists found under {root}/handwritten: wrong SOURCE_DIR?")
        return 1
    bad = 0
    for name, t in sorted(lists - stubs):
        print(f"handwritten/without_ladder.cpp: no {name}<{t}> (a grader build would not link)")
        bad += 1
    for name, t in sorted(stubs - lists):
        print(f"handwritten/without_ladder.cpp: {name}<{t}>, which no list file defines")
        bad += 1
    print(f"check_without_ladder.py: {len(lists)} lists of the ladder, {len(stubs)} in without_ladder.cpp, {bad} mismatches")
    return 1 if bad else 0


def selftest(root):
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp)
        for p in list(root.glob("handwritten/*/*.cu")) + [root / "handwritten" / "without_ladder.cpp"]:
            (copy / p.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(p, copy / p.relative_to(root))
        if check(copy) != 0:
            print("selftest: FAIL: the copy as it is does not pass")
            return 1
        stub = copy / "handwritten" / "without_ladder.cpp"
        text = stub.read_text()
        last = INST.findall(text)[-1]
        line = next(l for l in text.splitlines() if f"{last[0]}<{last[1]}>" in l)
        stub.write_text(text.replace(line + "\n", ""))
        if check(copy) != 1:
            print(f"selftest: FAIL: without {last[0]}<{last[1]}> the check passes")
            return 1
    print(f"selftest: ok (a stub without {last[0]}<{last[1]}> fails, the tree as it is passes)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    root = pathlib.Path(sys.argv[1])
    sys.exit(selftest(root) if "--selftest" in sys.argv[2:] else check(root))
