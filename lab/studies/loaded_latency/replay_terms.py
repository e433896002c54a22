#!/usr/bin/env python3
"""Replays every run of results/RUN/results.jsonl with memsim (loaded_latency_kernel.hpp through --kernel-file),
its warp instructions given from Nsight Compute (results/RUN/ncu_counts.csv), and writes each run's measured time
beside memsim's terms to results/RUN/terms_DEVICE.json, which fit_loaded_latency.py reads.

    replay_terms.py --memsim build/app/memsim --device h100 --run ll      (from the repository root)
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "validate"))
from record_lines import record_lines  # noqa: E402


def ncu_counts(path):
    lines = [l for l in open(path) if not l.startswith("==") and not l.startswith("{")]
    rows = list(csv.reader(lines))
    hdr = rows[0]
    i_id, i_m, i_v = hdr.index("ID"), hdr.index("Metric Name"), hdr.index("Metric Value")
    out = {}
    for r in rows[1:]:
        out.setdefault(int(r[i_id]), {})[r[i_m]] = float(r[i_v].replace(",", ""))
    return out


def memsim_command(memsim, device, r, instructions):
    """memsim's command replaying run r (a line of results/RUN/results.jsonl) through loaded_latency_kernel.hpp,
    its walk (the runs before the third have none: xx) as defines, its warp instructions given."""
    walk = r.get("walk", "xx")
    return [memsim, "--kernel-file", os.path.relpath(os.path.join(HERE, "loaded_latency_kernel.hpp")),
            "--define", "LL_MODE=%d" % r["mode"], "--define", "LL_K=%d" % r["k"], "--define", "LL_SBX=%d" % r["sbx"],
            "--define", "LL_LOAD_WALK_Y=%d" % (walk[0] == "y"), "--define", "LL_STORE_WALK_Y=%d" % (walk[1] == "y"),
            "--dtype", r["dtype"], "--matrix", r["matrix"], "--block", r["block"], "--tile", r["tile"],
            "--device", device, "--format", "json", "--instructions", "%d" % instructions]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--device", default="h100")
    ap.add_argument("--extra", action="append", default=[], help="one more memsim option")
    ap.add_argument("--run", default="ll", help="results/RUN/: ll (configs.txt) or walks (walks.txt)")
    ap.add_argument("--out")
    a = ap.parse_args()
    runs = [json.loads(l) for l in open(os.path.join(HERE, "results", a.run, "results.jsonl"))]
    counts = ncu_counts(os.path.join(HERE, "results", a.run, "ncu_counts.csv"))  # launch i of the ncu run: config i
    out = []
    for i, r in enumerate(runs):
        args = memsim_command(a.memsim, a.device, r, counts[i]["smsp__inst_executed.sum"]) + a.extra
        p = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["prediction"]
        out.append({"config": r["config"], "check_point": r["config"].endswith("check"),
                    "measured_us": r["time_us"]["median"], "predicted_us": p["time_us"], "terms_us": p["terms_us"],
                    "l2_read_requests": p.get("l2_read_requests"), "ncu": counts[i]})
        print("%-44s measured %7.1f memsim %7.1f %+6.1f%%" % (r["config"], r["time_us"]["median"], p["time_us"],
                                                              100 * (p["time_us"] / r["time_us"]["median"] - 1)))
    with open(a.out or os.path.join(HERE, "results", a.run, "terms_%s.json" % a.device), "w") as f:
        f.write(record_lines(out))  # the committed runs' layout (validate/record_lines.py)


if __name__ == "__main__":
    main()
