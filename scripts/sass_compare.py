#!/usr/bin/env python3
"""Compare the machine code of two builds, function by function.

Two modes:

    scripts/sass_compare.py OLD.cubin NEW.cubin        (cubins: no CUDA tool needed)
    scripts/sass_compare.py old.txt new.txt            (cuobjdump -sass listings)

Cubins (nvcc -cubin -arch=sm_XX) are read as ELF: each kernel's `.text.<mangled name>` section
bytes (the machine code, control words included), its register count and flags from the section
header, its relocations (offset, type, the symbol's name), its `.nv.info.<name>` attributes (with
symbol indices replaced by names) and its static shared memory (`.nv.shared.<name>`'s size). Two
functions are identical when all of these are. A function present in one build only is matched by
content against the other build's unmatched functions, so a kernel renamed by a refactoring (the
same code under a new template or name) counts as identical and is reported as `renamed`.

cuobjdump listings (`cuobjdump -sass BINARY > old.txt`): functions are matched by their (mangled)
name; each one's instructions are compared with the addresses and /*...*/ encodings stripped.

Either way: prints how many are identical, names those that differ or exist in one build only,
and exits 0 when every function of both builds has an identical counterpart. `--filter REGEX`
compares only the functions whose (demangled-insensitive, mangled) name matches. Used to show that
a refactoring changed no kernel (tests/scripts/sass_gate.py runs it on the gemm translation units).
"""
import argparse
import re
import struct
import sys

ANON = re.compile(r"\d+_GLOBAL__N__[0-9a-f]{8}_\d+_(\w+?_(?:cu|cpp))_[0-9a-f]{8}(?:_\d+)?")
HEADER = re.compile(r"^\s*(\w[\w ]* = |Fatbin |code for |=+$)")


def normal_name(name):
    """Anonymous namespaces are mangled with a hash of the file's path (and its length): keep the
    file's name only."""
    return ANON.sub(lambda m: "_ANON_" + m.group(1), name)


# ---- cuobjdump -sass listings ------------------------------------------------------------------
def listing_functions(path):
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


# ---- cubins (ELF) --------------------------------------------------------------------------------
# .nv.info attributes whose payload starts with a symbol index (a function's): that index is
# replaced by the symbol's name, since it depends on the order of the cubin's symbol table.
SYM_ATTRS = {0x0A, 0x11, 0x12, 0x23, 0x2F}  # PARAM_CBANK, FRAME_SIZE, MIN_STACK_SIZE, MAX_STACK_SIZE, REGCOUNT


class Elf:
    def __init__(self, path):
        self.data = open(path, "rb").read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2:
            raise SystemExit(f"{path}: not a 64-bit ELF file (a cubin)")
        e_shoff, = struct.unpack_from("<Q", d, 0x28)
        e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", d, 0x3A)
        self.sections = []
        for i in range(e_shnum):
            name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
                "<IIQQQQIIQQ", d, e_shoff + i * e_shentsize)
            self.sections.append(dict(name_off=name, type=typ, flags=flags, off=off, size=size, link=link,
                                      info=info, entsize=entsize))
        strtab = self.sections[e_shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(strtab["off"] + s["name_off"])
        self.by_name = {s["name"]: s for s in self.sections}
        self.symbols = []
        symtab = next((s for s in self.sections if s["type"] == 2), None)
        if symtab:
            names = self.sections[symtab["link"]]
            for j in range(symtab["size"] // 24):
                st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                    "<IBBHQQ", d, symtab["off"] + 24 * j)
                self.symbols.append(self.cstr(names["off"] + st_name))

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode(errors="replace")

    def body(self, s):
        return self.data[s["off"]:s["off"] + s["size"]] if s["type"] != 8 else b""  # NOBITS: no bytes

    def sym(self, i):
        return self.symbols[i] if 0 <= i < len(self.symbols) else f"#{i}"

    def info_records(self, s):
        """A .nv.info section's attributes, symbol indices named. Every record starts on 4 bytes:
        a one-byte value (EIFMT_BVAL) and no value (EIFMT_NVAL) are padded to a 16-bit field, so
        that a record read one byte short would read the rest of the section out of step."""
        d, out, p, end = self.body(s), [], 0, s["size"]
        while p + 2 <= end:
            fmt, attr = d[p], d[p + 1]
            p += 2
            if fmt == 0x04:  # EIFMT_SVAL: a 16-bit size, then the payload
                n, = struct.unpack_from("<H", d, p)
                payload = d[p + 2:p + 2 + n]
                p += 2 + n
                if attr in SYM_ATTRS and n >= 4:
                    payload = (self.sym(struct.unpack_from("<I", payload)[0]), payload[4:])
            elif fmt == 0x03:  # EIFMT_HVAL: a 16-bit value
                payload = d[p:p + 2]
                p += 2
            elif fmt == 0x02:  # EIFMT_BVAL: the byte and its padding
                payload = d[p:p + 1]
                p += 2
            else:  # EIFMT_NVAL: padding only
                payload = b""
                p += 2
            out.append((fmt, attr, payload))
        return out

    def relocations(self, name):
        s = self.by_name.get(".rel" + name) or self.by_name.get(".rela" + name)
        if not s:
            return []
        size = 24 if s["type"] == 4 else 16
        out = []
        for j in range(s["size"] // size):
            off, info = struct.unpack_from("<QQ", self.data, s["off"] + size * j)
            addend = struct.unpack_from("<q", self.data, s["off"] + size * j + 16)[0] if size == 24 else 0
            out.append((off, info & 0xFFFFFFFF, self.sym(info >> 32), addend))
        return out


def cubin_functions(path, arch_tag=None):
    """{(arch, name): [signature]}: each kernel's code and the attributes the loader sees."""
    elf = Elf(path)
    flags, = struct.unpack_from("<I", elf.data, 0x30)
    arch = arch_tag or f"sm_{(flags >> 8) & 0xFF}"  # e_flags: the SM version in bits 8..15
    # per-function records of the global .nv.info (REGCOUNT, FRAME_SIZE, ...), by the symbol's name
    glob = {}
    if ".nv.info" in elf.by_name:
        for fmt, attr, payload in elf.info_records(elf.by_name[".nv.info"]):
            if isinstance(payload, tuple):
                glob.setdefault(payload[0], []).append((attr, payload[1]))
    out = {}
    for s in elf.sections:
        if not s["name"].startswith(".text."):
            continue
        fn = s["name"][len(".text."):]
        info = elf.by_name.get(".nv.info." + fn)
        shared = elf.by_name.get(".nv.shared." + fn)
        def own(x):
            """Symbol names as they compare: the function's own name (its constant bank's, say) as
            <self>, anonymous namespaces without their path hash."""
            if isinstance(x, str):
                return normal_name(x.replace(fn, "<self>"))
            if isinstance(x, tuple):
                return tuple(own(y) for y in x)
            return x

        sig = own((
            elf.body(s),
            s["flags"], s["info"] >> 24,  # the register count lives in sh_info's top byte
            tuple(elf.relocations(s["name"])),
            tuple(elf.info_records(info)) if info else (),
            shared["size"] if shared else 0,
            tuple(sorted(glob.get(fn, []))),
        ))
        out[(arch, normal_name(fn))] = [sig]
    return out


def functions(path):
    with open(path, "rb") as f:
        magic = f.read(4)
    return cubin_functions(path) if magic == b"\x7fELF" else listing_functions(path)


def compare(old, new, out=sys.stdout):
    """Returns True where every function has an identical counterpart; prints the tally."""
    same = [k for k in old if k in new and old[k] == new[k]]
    differ = [k for k in old if k in new and old[k] != new[k]]
    only_old = [k for k in old if k not in new]
    only_new = [k for k in new if k not in old]
    # functions of one build only: matched by content (the same code under another name)
    renamed = []
    for k in list(only_old):
        for j in only_new:
            if j[0] == k[0] and new[j] == old[k]:
                renamed.append((k, j))
                only_old.remove(k)
                only_new.remove(j)
                break
    print(f"{len(same)} functions identical, {len(differ)} differ, {len(only_old)} only in the old build, "
          f"{len(only_new)} only in the new build" + (f"; {len(renamed)} identical under another name" if renamed else ""),
          file=out)
    for k, j in renamed:
        print(f"  renamed: {k[0]} {k[1]} -> {j[1]}", file=out)
    for title, ks in (("differ", differ), ("only old", only_old), ("only new", only_new)):
        for k in ks[:40]:
            print(f"  {title}: {k[0]} {k[1]}", file=out)
    return not (differ or only_old or only_new)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--filter", help="compare only the functions whose mangled name matches this regex")
    a = ap.parse_args(argv)
    old, new = functions(a.old), functions(a.new)
    if a.filter:
        rx = re.compile(a.filter)
        old = {k: v for k, v in old.items() if rx.search(k[1])}
        new = {k: v for k, v in new.items() if rx.search(k[1])}
    sys.exit(0 if compare(old, new) else 1)


if __name__ == "__main__":
    main()
