#!/usr/bin/env python3
"""scripts/profile.py against stand-ins for ncu and compare (no GPU, no Nsight Compute needed).

usage: test_profile.py SOURCE_DIR WORK_DIR

The stand-in compare lists two rows (a hand-written variant and a library baseline); the
stand-in ncu answers --query-metrics and prints, for each variant it is asked about, two of the
variant's kernels and one of the runner's (which must be dropped), with known counters. Checked:
the aggregation (duration-weighted rates, summed counts, FFMA per instruction, the longest
kernel's registers), the runner's kernel left out, --compute's columns present only when asked
for, and a missing ncu refused with one line and exit 3.
"""
import json
import os
import subprocess
import sys
import textwrap

from checks import check, done

src, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def write_exe(path, body):
    with open(path, "w") as f:
        f.write("#!" + sys.executable + "\n" + textwrap.dedent(body))
    os.chmod(path, 0o755)


fake_compare = os.path.join(work, "compare")
write_exe(fake_compare, """
    import json, os, sys
    a = sys.argv[1:]
    out, name = a[a.index("--out") + 1], a[a.index("--name") + 1]
    row = {"family": "gemm", "dtype": "float", "shape": "64x64x64", "dims": [64, 64, 64], "axes": [],
           "status": "ok"}
    rows = [dict(row, variant="gemm9_test", source="handwritten"),
            dict(row, variant="cublas_gemm", source="library")]
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"git_commit": "abc", "device": {"name": "Test GPU"}, "results": rows}, f)
""")

fake_ncu = os.path.join(work, "ncu")
write_exe(fake_ncu, """
    import sys
    a = sys.argv[1:]
    if "--query-metrics" in a:
        print('"Metric Name","Metric Type","Metric Unit","Metric Description"')
        for m in ["gpu__time_duration", "dram__bytes", "gpu__dram_throughput", "lts__t_sector_hit_rate",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "launch__registers_per_thread",
                  "sm__issue_active", "smsp__sass_thread_inst_executed_op_ffma_pred_on", "smsp__inst_executed",
                  "sm__warps_active", "smsp__average_warps_issue_stalled_barrier_per_issue_active",
                  "smsp__sass_average_data_bytes_per_sector_mem_global_op_st"]:
            print(f'"{m}","Counter","","-"')
        sys.exit(0)
    metrics = a[a.index("--metrics") + 1].split(",")
    variant = a[a.index("-v") + 1]
    print("==PROF== a line ncu prints that is not CSV")
    cols = ["ID", "Kernel Name"] + metrics
    print(",".join(f'"{c}"' for c in cols))
    print(",".join('""' if c == "ID" else '"unit"' for c in cols))
    # (duration ns, instructions, thread FFMAs, registers, issue %, barrier stalls per issue,
    # bytes stored per sector)
    kernels = [("fill_kernel(float*)", 9000, 1, 0, 8, 99, 9, 32),
               (variant + "_main(float*)", 3000, 300, 32 * 150, 128, 30, 2, 4),
               (variant + "_epilogue(float*)", 1000, 100, 32 * 50, 40, 10, 1, 32)]
    values = {"gpu__time_duration.sum": 1, "smsp__inst_executed.sum": 2,
              "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 3, "launch__registers_per_thread": 4,
              "sm__issue_active.avg.pct_of_peak_sustained_elapsed": 5,
              "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": 6,
              "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio": 7}
    for i, k in enumerate(kernels):
        cells = [str(i), k[0]] + [str(k[values[m]]) if m in values else "n/a" for m in metrics]
        print(",".join(f'"{c}"' for c in cells))
""")


def run(extra_env, *args):
    env = dict(os.environ, **extra_env)
    return subprocess.run([sys.executable, os.path.join(src, "scripts", "profile.py"), "--compare", fake_compare,
                           "--out", work] + list(args), capture_output=True, text=True, env=env)


# --compute: the compute columns, aggregated over the variant's two kernels, the runner's left out.
r = run({"KL_NCU": fake_ncu}, "--compute", "--name", "with_compute", "--", "-f", "gemm", "-s", "64")
check(r.returncode == 0, f"profile.py --compute exits 0 (got {r.returncode}: {r.stderr.strip()})")
if r.returncode == 0:
    with open(os.path.join(work, "with_compute.json")) as f:
        rows = json.load(f)["results"]
    check([x["variant"] for x in rows] == ["gemm9_test", "cublas_gemm"], "both rows profiled, in order")
    p = rows[0]["profile"]
    check(not any("fill_kernel" in k for k in p["kernels"]) and len(p["kernels"]) == 2,
          f"the runner's kernel is dropped, the variant's two kept (got {p['kernels']})")
    check(abs(p["time_us"] - 4.0) < 1e-9, f"time is the sum of the two kernels, 4 us (got {p['time_us']})")
    check(abs(p["ffma_per_instruction"] - 0.5) < 1e-12, f"FFMA per instruction 6400/32/400 = 0.5 (got {p['ffma_per_instruction']})")
    check(p["registers_per_thread"] == 128, f"registers of the longest kernel, 128 (got {p['registers_per_thread']})")
    check(p.get("longest_kernel") == "gemm9_test_main",
          f"the longest kernel's name without its parameters, gemm9_test_main (got {p.get('longest_kernel')})")
    check(abs(p["issue_active_pct"] - 25.0) < 1e-9, f"issue % weighted by duration, 25 (got {p['issue_active_pct']})")
    check(p.get("top_stall") == "barrier" and abs(p["top_stall_per_issue"] - 1.75) < 1e-9,
          f"top stall barrier at 1.75 per issue (got {p.get('top_stall')} {p.get('top_stall_per_issue')})")
    check(p.get("global_st_bytes_per_sector") is not None and abs(p["global_st_bytes_per_sector"] - 11.0) < 1e-9,
          f"bytes stored per sector weighted by duration, (4·3 + 32·1) / 4 = 11 (got {p.get('global_st_bytes_per_sector')})")
    with open(os.path.join(work, "with_compute.md")) as f:
        md = f.read()
    check("FFMA/instr" in md and "| `gemm9_test` |" in md and "(library)" in md, "the table has the compute columns and both rows")
    check("gst B/sector" in md and "| 11.0 |" in md, "the table has the bytes stored per sector")
    check("`cublas_gemm_main` |" in md, "each row names its longest kernel")

# Without --compute: the memory columns only.
r = run({"KL_NCU": fake_ncu}, "--name", "plain", "--", "-f", "gemm", "-s", "64")
check(r.returncode == 0, f"profile.py exits 0 (got {r.returncode}: {r.stderr.strip()})")
if r.returncode == 0:
    with open(os.path.join(work, "plain.md")) as f:
        md = f.read()
    check("FFMA/instr" not in md and "L2 hit %" in md, "without --compute, no compute columns")

# --from a gzipped report (results/ keeps the large ones as .json.gz): the same rows profiled.
if os.path.exists(os.path.join(work, "plain.json")):
    import gzip
    with open(os.path.join(work, "plain.json"), "rb") as f, gzip.open(os.path.join(work, "plain.json.gz"), "wb") as g:
        g.write(f.read())
    r = run({"KL_NCU": fake_ncu}, "--name", "from_gz", "--from", os.path.join(work, "plain.json.gz"))
    check(r.returncode == 0 and os.path.exists(os.path.join(work, "from_gz.md")),
          f"profile.py --from REPORT.json.gz exits 0 (got {r.returncode}: {r.stderr.strip()})")

# No ncu: one line, exit 3.
r = run({"KL_NCU": os.path.join(work, "no-such-ncu")}, "--", "-f", "gemm", "-s", "64")
lines = r.stderr.strip().splitlines()
check(r.returncode == 3 and len(lines) == 1 and lines[0].startswith("profile:"),
      f"a missing ncu: exit 3 and one line (got {r.returncode}: {r.stderr.strip()!r})")

done("profile.py: {n} failures")
