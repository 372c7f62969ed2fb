#!/usr/bin/env python3
"""ctest your_kernel_doc: every block of docs/your-kernel.md introduced by
<!-- checked: compare ARGS --> is the output of `compare ARGS` on a teacher's layout, word for word:
the walkthrough's GPU-free steps cannot drift from what the code prints. The layout is the doc's:
labs/ (this repository's examples/user_kernels) configured into build/ with -DKL_USER_KERNELS=labs.
The test makes it in a scratch folder from the examples the build made (set "examples"): labs/ holds
a link to each example's folder, build/submissions/user/manifest.json is the examples' manifest
with labs/ as its folder, and paths print as the doc's (build/..., labs/...). A block introduced by
<!-- checked after adding labs/gina: compare ARGS --> runs with a folder labs/gina (a copy of
alice's) that the build has not seen.

Every block introduced by <!-- gpu output: results/GPU/NAME.summary.md --> (the lines up to the next
blank one) is that committed file, word for word, and the run it came from (results/GPU/NAME.md) ran
the last `build/compare -f reduce ... --summary` command the doc shows above the block: the GPU half
is the output of a real run (scripts/device.sh walkthrough), regenerated with it.

usage: test_your_kernel_doc.py COMPARE_EXE EXAMPLES_MANIFEST DOC
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from checks import done, fail

exe, manifest, doc = sys.argv[1:4]
manifest = os.path.abspath(manifest)
text = open(doc).read()

scratch = tempfile.mkdtemp(prefix="kl-your-kernel-doc-")
try:
    examples = json.load(open(manifest))
    labs = os.path.join(scratch, "labs")
    os.makedirs(labs)
    root = examples["roots"][0]
    for name in sorted(os.listdir(root)):
        os.symlink(os.path.join(root, name), os.path.join(labs, name))
    examples["roots"] = [labs]
    teacher = os.path.join(scratch, "build", "submissions", "user", "manifest.json")
    os.makedirs(os.path.dirname(teacher))
    json.dump(examples, open(teacher, "w"))

    def as_in_doc(out):
        out = out.replace(os.path.dirname(manifest) + "/", "build/submissions/user/")
        return out.replace(scratch + "/", "")

    blocks = re.findall(r"<!-- checked( after adding labs/gina)?: compare (.*?) -->\n```text\n(.*?)```", text, re.S)
    if not blocks:
        fail("no <!-- checked: compare ... --> block in " + doc)
    for later, args, shown in blocks:
        gina = os.path.join(labs, "gina")
        if later:
            os.makedirs(gina)
            alice = os.path.join(root, "alice")
            for f in os.listdir(alice):
                shutil.copy(os.path.join(alice, f), gina)
        r = subprocess.run([exe, "--submissions", teacher] + shlex.split(args), capture_output=True, text=True)
        if later:
            shutil.rmtree(gina)
        out = as_in_doc(r.stdout)
        if r.returncode != 0:
            fail(f"compare {args}: exit {r.returncode}: {r.stderr.strip()}")
        elif out != shown:
            fail(f"compare {args}: the doc shows\n{shown}\nbut it prints\n{out}")
finally:
    shutil.rmtree(scratch, ignore_errors=True)

repo = os.path.dirname(os.path.dirname(os.path.abspath(doc)))
gpu_blocks = [(m.group(1), m.group(2), m.start()) for m in
              re.finditer(r"<!-- gpu output: (\S+) -->\n(.*?)\n\n", text, re.S)]
if not gpu_blocks:
    fail("no <!-- gpu output: ... --> block in " + doc)
for path, shown, at in gpu_blocks:
    # the command the doc shows last before the block is the one its run must have made
    commands = re.findall(r"build/compare (-f reduce .*?--summary)\n", text[:at])
    shown_command = re.match(r"(.*)", commands[-1]) if commands else None
    try:
        real = open(os.path.join(repo, path)).read().strip()
        report = open(os.path.join(repo, path.replace(".summary.md", ".md"))).read()
    except OSError as e:
        fail(f"{path}: {e}")
        continue
    if shown.strip() != real:
        fail(f"the doc's table after 'gpu output: {path}' is not that file:\n{shown}\n---\n{real}")
    if not shown_command or shown_command.group(1) not in report:
        fail(f"{path}: its run's command is not the doc's "
                        f"'{shown_command.group(1) if shown_command else '(none found)'}'")
done(f"{len(blocks)} checked blocks, {len(gpu_blocks)} GPU output blocks, {{n}} failures")
