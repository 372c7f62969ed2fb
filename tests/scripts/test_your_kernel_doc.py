#!/usr/bin/env python3
"""ctest your_kernel_doc: every block of docs/your-kernel.md introduced by
<!-- checked: compare ARGS --> is the output of `compare --submissions EXAMPLES_MANIFEST ARGS`
(the examples built as -DKL_USER_KERNELS=examples/user_kernels builds them), word for word: the
walkthrough's GPU-free steps cannot drift from what the code prints.

usage: test_your_kernel_doc.py COMPARE_EXE EXAMPLES_MANIFEST DOC
"""
import re
import shlex
import subprocess
import sys

exe, manifest, doc = sys.argv[1:4]
text = open(doc).read()
blocks = re.findall(r"<!-- checked: compare (.*?) -->\n```text\n(.*?)```", text, re.S)
failures = []
if not blocks:
    failures.append("no <!-- checked: compare ... --> block in " + doc)
for args, shown in blocks:
    r = subprocess.run([exe, "--submissions", manifest] + shlex.split(args), capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"compare {args}: exit {r.returncode}: {r.stderr.strip()}")
    elif r.stdout != shown:
        failures.append(f"compare {args}: the doc shows\n{shown}\nbut it prints\n{r.stdout}")
for f in failures:
    print("FAIL:", f)
print(f"{len(blocks)} checked blocks, {len(failures)} failures")
sys.exit(1 if failures else 0)
