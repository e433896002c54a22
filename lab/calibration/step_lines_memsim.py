#!/usr/bin/env python3
"""memsim's read-back and time beside memsim-step-lines' measured ones, by how the runs write their lines: step by
step (the rest of a part line a grid row on), " next" (the rest from the next blocks), " staged" (every load, a
barrier, every store), each at one step and at more. A judgement of the replay's count on microbenchmark runs,
not a fit: each run is replayed as fit_held_open_time.py replays it (step_lines_kernel.hpp with the run's
parameters, its blocks an SM forced through the register count).

    lab/calibration/step_lines_memsim.py RUNS.json RUNS.ncu.csv --memsim BIN --device NAME [--report FILE]

The read-back e is Nsight Compute's DRAM bytes read beyond the input over the output (every run reads its 256 MiB
input once), memsim's the JSON's dram_bytes.read_back over the same. Runs where memsim's occupancy differs from
the measured blocks an SM (the register count cannot force it) are counted apart and left out of the means.
"""
import argparse
import concurrent.futures
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: the report's output, the error rule)
from fit_held_open import ncu_by_id  # noqa: E402  (the same ncu --csv layout, one row a metric)
from fit_held_open_time import step_lines_args  # noqa: E402  (the one command line that replays a run)


def kind(run):
    return "staged" if run.get("staged") else "next" if run.get("rest_from_next") else "step by step"


def predict(memsim, device, run):
    args = step_lines_args(run) + ["--device", device, "--no-compile"]
    try:
        return memsim_run.memsim_report(memsim, args)["prediction"]
    except memsim_run.Error as e:
        raise memsim_run.Error("%s: %s" % (run["name"], e)) from None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("ncu")
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--device", required=True)
    ap.add_argument("--report")
    a = ap.parse_args()
    doc = json.load(open(a.runs))
    counters = ncu_by_id(a.ncu)
    if len(counters) != len(doc["runs"]):
        raise ValueError("%s has %d launches, %s %d runs" % (a.ncu, len(counters), a.runs, len(doc["runs"])))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        predictions = list(pool.map(lambda r: predict(a.memsim, a.device, r), doc["runs"]))
    out_bytes = doc["output_bytes"]
    groups, apart = {}, 0
    for i, (run, p) in enumerate(zip(doc["runs"], predictions)):
        m = counters[i]  # by launch id, in the runs' order
        if p["occupancy"]["blocks_per_sm"] != run["blocks_per_sm"]:
            apart += 1
            continue
        key = (kind(run), "S = 1" if run["steps"] == 1 else "S > 1")
        groups.setdefault(key, []).append(((m["dram__bytes_read.sum"] - out_bytes) / out_bytes,
                                           p["dram_bytes"]["read_back"] / out_bytes,
                                           p["time_us"] / run["median_us"] - 1))
    lines = ["memsim-step-lines on %s (%s), %d runs, against memsim (profile %s, without the toolkit)"
             % (doc["device"], doc["date"], len(doc["runs"]), a.device),
             "%-14s %-6s %4s %10s %8s %8s %10s %11s" % ("runs", "steps", "n", "e measured", "e memsim", "rms e",
                                                     "time error", "mean |err|")]
    for key in sorted(groups):
        g = groups[key]
        n = len(g)
        lines.append("%-14s %-6s %4d %10.3f %8.3f %8.3f %+9.1f%% %10.1f%%" % (
            key[0], key[1], n, sum(e for e, _, _ in g) / n, sum(x for _, x, _ in g) / n,
            math.sqrt(sum((x - e) ** 2 for e, x, _ in g) / n), 100 * sum(t for _, _, t in g) / n,
            100 * sum(abs(t) for _, _, t in g) / n))
    lines.append("left out: %d runs where memsim's blocks an SM differ from the run's" % apart)
    memsim_run.emit_report(lines, a.report)


if __name__ == "__main__":  # a missing or malformed input: one line, exit 2
    memsim_run.main_guard(main, also=(OSError, ValueError, KeyError, IndexError, TypeError))
