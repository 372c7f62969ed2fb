#!/usr/bin/env python3
"""results/<gpu>/MANIFEST.json: which stage of scripts/device.sh wrote each file of a GPU's folder,
with the command line, the commit, the date and the card; and results/README.md, generated from
the manifests.

usage:
  scripts/results_manifest.py begin OUT STAGE            before a stage: forget (and delete) the files
                                                          the manifest lists for STAGE, so a rerun
                                                          leaves none of its old files behind
  scripts/results_manifest.py record OUT STAGE CMD FILE...
                                                          after a step: list FILEs (paths under OUT;
                                                          the missing ones are skipped) as written by
                                                          STAGE running CMD, at the commit the
                                                          executables were built from
                                                          (KL_MEASURED_COMMIT: device.sh takes it
                                                          from `compare --version`; else this
                                                          checkout's), now, on this machine's GPUs
  scripts/results_manifest.py readme [--root DIR] [--check]
                                                          write results/README.md from the manifests
                                                          (--check: exit 1 when it differs instead)
  scripts/results_manifest.py check [--root DIR]          exit 1 unless every file under results/*/ is
                                                          in its folder's manifest, every entry's file
                                                          exists, a report's entry names the commit
                                                          its git_commit does, and results/README.md
                                                          is generated

A manifest is {"folder": "h100", "files": [{"file", "stage", "command", "commit", "date", "card",
"recorded"}, ...]}, files sorted by name. "recorded" says where the entry came from: "device.sh"
for an entry this script wrote when the stage ran; entries made afterwards from a file's own
metadata (a report's git_commit, command_line, timestamp_utc and device) say so. Needs python3
only (and git, nvidia-smi for `record`).
"""
import gzip
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone

PROG = "results_manifest.py"
NAME = "MANIFEST.json"

# What each stage of scripts/device.sh (and the scripts it calls) measures, for the README.
STAGES = {
    "suites": "the host suite and the GPU suite, whole",
    "sanitize": "compute-sanitizer memcheck, racecheck and synccheck over the GPU suite's quick pass",
    "default": "compare's default run: every family at its default types and sizes",
    "gemm_auto": "gemm_auto against every listed step: the rules' 26 shapes, two sweeps of 42 odd shapes, "
                 "every shape class (one file per type), the DGEMM squares, mid-size float products",
    "gemm_auto_fresh": "gemm_auto against every listed step on two further sweeps of 42 odd shapes per type, "
                       "drawn after its rules last changed",
    "gemm_ragged": "the ragged float and double products furthest below cuBLAS, each beside its aligned neighbour "
                   "(N and K rounded down to whole 16-byte vectors), every step gemm_auto may pick",
    "gemm_auto_sanitize": "compute-sanitizer (memcheck, racecheck, synccheck) over the GPU suite's case that "
                          "runs every step gemm_auto's tune measures, split or not",
    "shapes": "every shape class (`--sizes shapes`) over each ladder's last steps",
    "ladders": "the SGEMM and DGEMM ladders, the gemm targets",
    "families": "document 003's sizes, the dot types, every rows op, transpose7's sizes, the reduce steps, the bank modes",
    "gemm13_fill": "gemm13's ring filled by TMA against cp.async (the ragged ablation), beside gemm12 and cuBLAS; "
                   "compute-sanitizer over the suite's cases that run the ragged form",
    "scan": "the scan ladder beside CUB and Thrust (2^28 and odd sizes, int and float, both forms), "
            "Nsight Compute over its last steps",
    "scan_sanitize": "compute-sanitizer (memcheck, racecheck, synccheck) over the GPU suite's scan cases",
    **{f"scan_2p31_{t}": f"every scan step at 2^31 + 7 elements (64-bit indices) in {t}, both forms"
       for t in ("int", "float", "double")},
    "profiles": "Nsight Compute over the steps docs/ explain (scripts/profile.py)",
    "profile_behind": "Nsight Compute over the rules' shapes gemm_auto is still below cuBLAS on (read off the rules' "
                      "reports), the fastest listed step at each beside the library's kernel",
    "walkthrough": "docs/your-kernel.md's graded example",
    "plots": "scripts/plot_compare.py over the folder's reports",
    "grading": "outside submissions graded (scripts/device-grading.sh)",
    "judging": "compare diff's false alarms and power (scripts/device-judging.sh)",
    "allreduce": "the all-reduce ladder against NCCL on 2+ GPUs: cold, warm, odd sizes, a fault, the sanitizer, "
                 "the suite's cases",
}


def fail(msg, status=2):
    sys.stderr.write(f"{PROG}: error: {msg}\n")
    sys.exit(status)


def load(out):
    path = os.path.join(out, NAME)
    if not os.path.isfile(path):
        return {"folder": os.path.basename(os.path.normpath(out)), "files": []}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(out, manifest):
    manifest["files"].sort(key=lambda e: e["file"])
    tmp = os.path.join(out, NAME + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, os.path.join(out, NAME))


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    except OSError:
        return ""


def commit_here():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    head = run(["git", "-C", top, "rev-parse", "--short=12", "HEAD"]) or "unknown"
    dirty = run(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"])
    return head + ("-dirty" if dirty else "")


def card_here():
    names = [n for n in run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).splitlines() if n]
    if not names:
        return "unknown"
    return names[0] if len(names) == 1 else f"{len(names)}x {names[0]}"


def begin(out, stage):
    manifest = load(out)
    keep = []
    for e in manifest["files"]:
        if e["stage"] == stage:
            path = os.path.join(out, e["file"])
            if os.path.isfile(path):
                os.remove(path)
        else:
            keep.append(e)
    manifest["files"] = keep
    os.makedirs(out, exist_ok=True)
    save(out, manifest)


def record(out, stage, command, files):
    manifest = load(out)
    commit, card = os.environ.get("KL_MEASURED_COMMIT") or commit_here(), card_here()
    date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    rels = []
    for f in files:
        rel = os.path.relpath(f, out)
        if os.path.isfile(os.path.join(out, rel)) and rel != NAME:
            rels.append(rel)
    manifest["files"] = [e for e in manifest["files"] if e["file"] not in rels]
    for rel in rels:
        manifest["files"].append({"file": rel, "stage": stage, "command": " ".join(command.split()), "commit": commit,
                                  "date": date, "card": card, "recorded": "device.sh"})
    save(out, manifest)


def folders(root):
    base = os.path.join(root, "results")
    return sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d))) if os.path.isdir(base) else []


def stem(name):
    for ext in (".json.gz", ".summary.md", ".json", ".md", ".csv", ".log", ".txt", ".png"):
        if name.endswith(ext):
            return name[: -len(ext)], ext
    return name, ""


def short(commit):
    """A commit as the README shows it: 12 hex digits, a -dirty suffix kept; free text as it is."""
    m = re.fullmatch(r"([0-9a-f]{7,40})(-dirty)?", commit)
    return m.group(1)[:12] + (m.group(2) or "") if m else commit


def readme_text(root):
    lines = [
        "# Results: the current measurement, one folder per GPU",
        "",
        "<!-- Generated by scripts/results_manifest.py readme from results/*/MANIFEST.json; do not edit. -->",
        "",
        "Every file here was written by a stage of `scripts/device.sh`, and its folder's `MANIFEST.json`",
        "names the stage, the command line, the commit it measured, the date and the card. One command",
        "regenerates a folder on a GPU machine (`scripts/device.sh` for a GPU's folder, `scripts/device.sh",
        "build allreduce` on 2+ GPUs for `results/<gpu>x<N>/`); each stage first deletes the files it wrote",
        "last time, then records what it writes. A file from an older commit is the last run of its stage",
        "there: its row says which commit it measured. Earlier runs and the trials behind each step are in",
        "main's history, cited by commit and path (`git show COMMIT:PATH`; CONTRIBUTING.md).",
        "",
    ]
    for folder in folders(root):
        manifest = load(os.path.join(root, "results", folder))
        entries = manifest["files"]
        cards = sorted({e["card"] for e in entries})
        lines += [f"## {folder}", "", f"Card: {', '.join(cards)}. Stages: "
                  + ", ".join(sorted({e['stage'] for e in entries})) + ".", ""]
        lines += ["| files | stage | commit | date |", "|---|---|---|---|"]
        groups = {}
        for e in entries:
            s, ext = stem(e["file"])
            s = re.sub(r"(?<=run)\d+$", "*", s)  # judging/runs/A/run1 ... run10: one row
            key = (s, e["stage"], e["commit"])
            groups.setdefault(key, []).append((ext, e["date"][:10]))
        for (s, stage, commit), got in sorted(groups.items()):
            exts = sorted({ext for ext, _ in got})
            dates = sorted({d for _, d in got})
            shown = f"`{s}{exts[0]}`" if len(exts) == 1 else f"`{s}` ({', '.join(exts)})"
            lines.append(f"| {shown} | {stage} | {short(commit)} | {' to '.join([dates[0], dates[-1]][:len(dates)])} |")
        lines.append("")
    lines += ["## Stages", "", "| stage | what it measures |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in STAGES.items()]
    lines.append("")
    return "\n".join(lines)


def readme(root, check):
    path = os.path.join(root, "results", "README.md")
    text = readme_text(root)
    if check:
        have = open(path, encoding="utf-8").read() if os.path.isfile(path) else ""
        if have != text:
            print(f"{PROG}: results/README.md is not what `scripts/results_manifest.py readme` generates from the manifests")
            return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


def report_commit(path):
    """A compare report's git_commit (the commit its binary was built from); None for other files."""
    if not path.endswith((".json", ".json.gz")):
        return None
    try:
        with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    return r.get("git_commit") if isinstance(r, dict) else None


def check(root):
    problems = []
    for folder in folders(root):
        out = os.path.join(root, "results", folder)
        if not os.path.isfile(os.path.join(out, NAME)):
            problems.append(f"results/{folder}/: no {NAME}")
            continue
        manifest = load(out)
        listed = {e["file"] for e in manifest["files"]}
        for e in manifest["files"]:
            missing = [k for k in ("file", "stage", "command", "commit", "date", "card") if not e.get(k)]
            if missing:
                problems.append(f"results/{folder}/{NAME}: {e.get('file')}: no {', '.join(missing)}")
            if e.get("stage") not in STAGES:
                problems.append(f"results/{folder}/{NAME}: {e.get('file')}: unknown stage {e.get('stage')!r}")
            if not os.path.isfile(os.path.join(out, e["file"])):
                problems.append(f"results/{folder}/{e['file']}: listed in {NAME}, not there")
            elif e.get("commit"):
                measured = report_commit(os.path.join(out, e["file"]))
                if measured and short(measured) != short(e["commit"]):
                    problems.append(f"results/{folder}/{e['file']}: {NAME} says commit {e['commit']}, the report's "
                                    f"git_commit is {measured} (the binary that measured it)")
        for dirpath, _, names in os.walk(out):
            for n in names:
                rel = os.path.relpath(os.path.join(dirpath, n), out)
                if rel != NAME and rel not in listed:
                    problems.append(f"results/{folder}/{rel}: not in results/{folder}/{NAME} (no stage wrote it)")
    if readme(root, True):
        problems.append("results/README.md: not generated from the manifests (run scripts/results_manifest.py readme)")
    for p in problems:
        print(p)
    print(f"{PROG}: {len(folders(root))} folders checked, {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, rest = argv[0], argv[1:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if "--root" in rest:
        i = rest.index("--root")
        if i + 1 >= len(rest):
            fail("--root needs a folder")
        root = rest[i + 1]
        del rest[i:i + 2]
    if cmd == "begin" and len(rest) == 2:
        begin(rest[0], rest[1])
        return 0
    if cmd == "record" and len(rest) >= 3:
        record(rest[0], rest[1], rest[2], rest[3:])
        return 0
    if cmd == "readme" and rest in ([], ["--check"]):
        return readme(root, rest == ["--check"])
    if cmd == "check" and not rest:
        return check(root)
    if cmd in ("-h", "--help"):
        print(__doc__)
        return 0
    fail(f"bad usage: {' '.join(argv)} (--help says how)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
