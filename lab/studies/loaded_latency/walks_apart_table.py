#!/usr/bin/env python3
"""The third and fourth runs' tables (README, "Each side's walk apart", "The grid's order"): every mode-2 run of
results/RUN/ (walks_apart, walks_grid) beside memsim
(loaded_latency_kernel.hpp through --kernel-file, the run's walk as LL_LOAD_WALK_Y / LL_STORE_WALK_Y, the warp
instructions given from Nsight Compute): measured and predicted time, and the read-back measured and modelled
(DRAM bytes read beyond the input, over the output: the mode-0 runs read the input once at every walk but one);
then memsim again with that read-back given (--dram-read-bytes: memsim's loads' bytes plus the measured
read-back), which leaves the error the read-back's count does not explain. Where the loads walk down first over
more than one column of steps, they come back to lines the L2 has dropped beside the stores (the mode-0 run of
f32 8x32 on 32x256 reads 283 MB, with the stores more), so their read-back cannot be told apart: "-".

    walks_apart_table.py --memsim build/app/memsim [--run walks_apart|walks_grid] [--device h100]
    (from the repository root)

memsim replays the usual grid order only (blockIdx.x the tile column): a run with the grid numbered down the tile
columns first (walks_grid's gy, "tile rows first") gets the same prediction as its twin.
"""
import argparse
import json
import os
import subprocess
import sys

from replay_terms import HERE, memsim_command, ncu_counts


def memsim(a, r, counts, extra=()):
    args = memsim_command(a.memsim, a.device, r, counts["smsp__inst_executed.sum"]) + ["--no-compile"] + list(extra)
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["prediction"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--device", default="h100")
    ap.add_argument("--run", default="walks_apart")
    a = ap.parse_args()
    d = os.path.join(HERE, "results", a.run)
    runs = [json.loads(l) for l in open(os.path.join(d, "results.jsonl"))]
    counts = ncu_counts(os.path.join(d, "ncu.csv"))  # launch i: run i
    if len(counts) != len(runs):
        raise SystemExit("%s: %d launches for %d runs" % (d, len(counts), len(runs)))
    print("| dtype | block / tile | walk | grid | steps | measured µs | memsim | read-back measured / memsim | "
          "memsim, read given | written / output |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, r in enumerate(runs):
        if r["mode"] != 2:
            continue
        m = counts[i]
        bx, by = map(int, r["block"].split("x"))
        tx, ty = map(int, r["tile"].split("x"))
        w, h = map(int, r["matrix"].split("x"))
        size = {"f16": 2, "f32": 4, "f64": 8}[r["dtype"]]
        out = w * h * size
        revisits = r.get("walk", "xx")[0] == "y" and tx > bx
        e = (m["dram__bytes_read.sum"] - out) / out
        p = memsim(a, r, m)
        t = r["time_us"]["median"]
        if revisits:
            measured, given = "-", "-"
        else:
            own = p["dram_bytes"]["read"] - p["dram_bytes"]["read_back"]  # memsim's loads' bytes
            g = memsim(a, r, m, ["--dram-read-bytes", "%d" % (own + max(0.0, e) * out)])
            measured, given = "%.3f" % e, "%+.1f%%" % (100 * (g["time_us"] / t - 1))
        grid = "tile rows first" if r.get("grid") == "y" else "usual"
        print("| %s | %s / %s | %s | %s | %d | %.1f | %+.1f%% | %s / %.3f | %s | %.2f |" % (
            r["dtype"], r["block"], r["tile"], r.get("walk", "xx"), grid, (tx // bx) * (ty // by), t,
            100 * (p["time_us"] / t - 1), measured, p["read_back_fraction"], given,
            m["dram__bytes_write.sum"] / out))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        print("walks_apart_table.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(2)
