#!/usr/bin/env python3
"""Compare the machine code of two builds, function by function.

    cuobjdump -sass OLD_BINARY > old.txt; cuobjdump -sass NEW_BINARY > new.txt
    scripts/sass_compare.py old.txt new.txt

Functions are matched by their (mangled) name; each one's instructions are compared with the
addresses and /*...*/ encodings stripped. Prints how many are identical, and names those that
differ or exist in one build only. Exit status 0 when every function of both builds is identical.
Used to show that a refactoring changed no kernel (issue 27's "every kernel's SASS identical").
"""
import re
import sys


ANON = re.compile(r"\d+_GLOBAL__N__[0-9a-f]{8}_\d+_(\w+?_(?:cu|cpp))_[0-9a-f]{8}(?:_\d+)?")
HEADER = re.compile(r"^\s*(\w[\w ]* = |Fatbin |code for |=+$)")


def normal_name(name):
    """Anonymous namespaces are mangled with a hash of the file's path (and its length): keep the
    file's name only."""
    return ANON.sub(lambda m: "_ANON_" + m.group(1), name)


def functions(path):
    """{(arch, name): sorted list of bodies}: a template kernel instantiated in several translation
    units appears once per unit."""
    out, name, body = {}, None, []
    arch = None
    for line in open(path, errors="replace"):
        m = re.match(r"\s*arch = (sm_\d+\w*)", line)
        if m:
            arch = m.group(1)
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name:
                out.setdefault((arch, name), []).append(body)
            name, body = normal_name(m.group(1)), []
            continue
        if name is None or HEADER.match(line):
            continue
        ins = re.sub(r"/\*[0-9a-fx]+\*/", "", line)          # addresses
        ins = re.sub(r"/\* 0x[0-9a-f]+ \*/", "", ins).strip()  # encodings
        ins = ins.rstrip(";").strip()
        if ins and not ins.startswith(".") and not ins.startswith("...."):
            body.append(ins)
    if name:
        out.setdefault((arch, name), []).append(body)
    return {k: sorted(v) for k, v in out.items()}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sass_compare.py OLD.txt NEW.txt")
    old, new = functions(sys.argv[1]), functions(sys.argv[2])
    same = [k for k in old if k in new and old[k] == new[k]]
    differ = [k for k in old if k in new and old[k] != new[k]]
    only_old = [k for k in old if k not in new]
    only_new = [k for k in new if k not in old]
    print(f"{len(same)} functions identical, {len(differ)} differ, {len(only_old)} only in the old build, "
          f"{len(only_new)} only in the new build")
    for title, ks in (("differ", differ), ("only old", only_old), ("only new", only_new)):
        for k in ks[:40]:
            print(f"  {title}: {k[0]} {k[1]}")
    sys.exit(0 if not (differ or only_old or only_new) else 1)


if __name__ == "__main__":
    main()
