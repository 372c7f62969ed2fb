#!/usr/bin/env python3
"""ctest your_kernel_doc: every block of docs/your-kernel.md introduced by
<!-- checked: compare ARGS --> is the output of `compare --submissions EXAMPLES_MANIFEST ARGS`
(the examples built as -DKL_USER_KERNELS=examples/user_kernels builds them), word for word: the
walkthrough's GPU-free steps cannot drift from what the code prints. Every block introduced by
<!-- gpu output: results/GPU/NAME.summary.md --> (the lines up to the next blank one) is that
committed file, word for word, and the run it came from (results/GPU/NAME.md) ran the command
the doc's "Build and run" section shows: the GPU half is the output of a real run
(scripts/device.sh walkthrough), regenerated with it.

usage: test_your_kernel_doc.py COMPARE_EXE EXAMPLES_MANIFEST DOC
"""
import os
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
root = os.path.dirname(os.path.dirname(os.path.abspath(doc)))
gpu_blocks = re.findall(r"<!-- gpu output: (\S+) -->\n(.*?)\n\n", text, re.S)
if not gpu_blocks:
    failures.append("no <!-- gpu output: ... --> block in " + doc)
shown_command = re.search(r"build/compare (-f reduce .*?--summary)\n", text)
for path, shown in gpu_blocks:
    try:
        real = open(os.path.join(root, path)).read().strip()
        report = open(os.path.join(root, path.replace(".summary.md", ".md"))).read()
    except OSError as e:
        failures.append(f"{path}: {e}")
        continue
    if shown.strip() != real:
        failures.append(f"the doc's table after 'gpu output: {path}' is not that file:\n{shown}\n---\n{real}")
    if not shown_command or shown_command.group(1) not in report:
        failures.append(f"{path}: its run's command is not the doc's "
                        f"'{shown_command.group(1) if shown_command else '(none found)'}'")
for f in failures:
    print("FAIL:", f)
print(f"{len(blocks)} checked blocks, {len(gpu_blocks)} GPU output blocks, {len(failures)} failures")
sys.exit(1 if failures else 0)
