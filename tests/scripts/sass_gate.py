#!/usr/bin/env python3
"""ctest sass_gate (opt-in: configure with -DKL_SASS_BASE=<ref>): the machine code of the gemm
translation units at this tree against the same units at git ref BASE, kernel by kernel.

Each unit is compiled with nvcc -cubin, as the build compiles it (Release flags, C++17, -lineinfo),
once per architecture, in this tree and in an export of BASE (`git archive`, cached under WORK_DIR
by the base's commit id); scripts/sass_compare.py then compares every kernel's .text section bytes,
relocations, attributes and shared memory (a kernel renamed by a refactoring is matched by its
code). By default: handwritten/gemm/gemm_list.cu for sm_90a with KL_BUILD_SM90A, which instantiates
every registered gemm13 and gemm14 form and gemm_auto's steps. --portable adds gemm_list.cu and
aat_list.cu for the portable architectures (sm_75, sm_80, sm_90). Exit status 0 when every kernel
is identical. Needs nvcc, no GPU, no cuobjdump.

usage: sass_gate.py SOURCE_DIR WORK_DIR BASE [--portable] [--nvcc PATH]
"""
import argparse
import os
import subprocess
import sys

UNITS_90A = [("handwritten/gemm/gemm_list.cu", "sm_90a", ["-DKL_BUILD_SM90A=1"])]
UNITS_PORTABLE = [(u, a, []) for u in ("handwritten/gemm/gemm_list.cu", "handwritten/gemm/aat_list.cu")
                  for a in ("sm_75", "sm_80", "sm_90")]
FLAGS = ["-O3", "-DNDEBUG", "-std=c++17", "-lineinfo", "-cubin"]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write(f"sass_gate: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
        sys.exit(2)
    return r.stdout


def export(src, base, work):
    """BASE's tree under WORK_DIR/base-<commit> (cached)."""
    sha = run(["git", "-C", src, "rev-parse", "--verify", base + "^{commit}"]).strip()
    tree = os.path.join(work, "base-" + sha[:12])
    if not os.path.isdir(tree):
        os.makedirs(tree + ".tmp", exist_ok=True)
        archive = subprocess.Popen(["git", "-C", src, "archive", sha], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", tree + ".tmp"], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            sys.exit("sass_gate: git archive failed")
        os.rename(tree + ".tmp", tree)
    return sha, tree


def cubin(nvcc, tree, unit, arch, defs, out):
    if not os.path.exists(out):
        run([nvcc, "-I" + tree, *FLAGS, *defs, "-arch=" + arch, "-x", "cu", os.path.join(tree, unit), "-o", out + ".tmp"])
        os.rename(out + ".tmp", out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source_dir")
    ap.add_argument("work_dir")
    ap.add_argument("base")
    ap.add_argument("--portable", action="store_true")
    ap.add_argument("--nvcc", default=os.environ.get("KL_NVCC", "nvcc"))
    a = ap.parse_args()
    src, work = os.path.abspath(a.source_dir), os.path.abspath(a.work_dir)
    os.makedirs(work, exist_ok=True)
    sys.path.insert(0, os.path.join(src, "scripts"))
    import sass_compare

    sha, base_tree = export(src, a.base, work)
    print(f"sass_gate: {src} against {a.base} ({sha[:12]})")
    ok = True
    for unit, arch, defs in UNITS_90A + (UNITS_PORTABLE if a.portable else []):
        tag = unit.replace("/", "_") + "." + arch
        old = cubin(a.nvcc, base_tree, unit, arch, defs, os.path.join(work, f"base-{sha[:12]}.{tag}.cubin"))
        new_path = os.path.join(work, f"new.{tag}.cubin")
        if os.path.exists(new_path):
            os.remove(new_path)  # this tree changes between runs: always rebuilt
        new = cubin(a.nvcc, src, unit, arch, defs, new_path)
        print(f"{unit} {arch}: ", end="")
        ok = sass_compare.compare(sass_compare.functions(old), sass_compare.functions(new)) and ok
    print("sass_gate: identical machine code" if ok else "sass_gate: the machine code differs")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
