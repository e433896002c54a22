#!/usr/bin/env python3
"""Fits a profile's cost of a byte read back (cost.read_back.ps_per_byte, by lane width) to memsim-held-open's
timed runs, every other constant held: each run is replayed by memsim itself (its addresses as a kernel file,
lab/calibration/held_open_kernel.hpp, with the run's P, Q, R and order as defines, its blocks an SM as a
register count) and predicted with the cost tried; per lane width (4 and 8 bytes: the runs of u32 and u64
elements), the cost that minimises the squared log error of the runs whose read-back is at least 5% and whose
lines are open at most 300,000 at once (the read-back fit's range). Microbenchmark runs only.

    lab/calibration/fit_held_open_time.py MEMSIM PROFILE RUNS.json [--report FILE] [--write]

--write puts the fitted costs into PROFILE (model/devices/NAME.json: its read_back.ps_per_byte[0] and [1]).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNEL = os.path.join(ROOT, "lab", "calibration", "held_open_kernel.hpp")
REGS_FOR = {8: 32, 4: 64, 2: 128}  # 256 threads a block: 65,536 registers an SM / (256 x regs) blocks


def memsim_args(run):
    e = run["element_bytes"]
    rows = 4096 if run["row_bytes"] == 65536 else 8192
    cols = (256 << 20) // e // rows
    R = run.get("rows_per_request", 32)
    P, Q = run["warps_a_line"], run["lines_a_row"]
    return ["--kernel-file", KERNEL, "--define", "HO_P=%d" % P, "--define", "HO_Q=%d" % Q, "--define",
            "HO_R=%d" % R, "--define", "HO_SEQUENTIAL=%d" % int(run["sequential"]),
            "--dtype", {4: "f32", 8: "f64"}[e], "--matrix", "%dx%d" % (rows, cols), "--block", "32x8",
            "--tile", "%dx%d" % (R * (8 // P), Q * 128 // e), "--regs", str(REGS_FOR[run["blocks_per_sm"]]),
            "--format", "json"]


def predict(memsim, profile_path, run):
    out = subprocess.run([memsim, *memsim_args(run), "--device", profile_path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("memsim failed on %s: %s" % (run["name"], out.stderr.strip()))
    return json.loads(out.stdout)["prediction"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("memsim")
    ap.add_argument("profile")
    ap.add_argument("runs")
    ap.add_argument("--report")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    base = json.load(open(a.profile))
    doc = json.load(open(a.runs))
    # A block's rows must fill memsim's 32-wide block rows (the tile is a multiple of the block): R x 8/P of 32 or
    # more (16 rows a request from 8 warps a line, or 8 from 4, are left out: they read back little anyway).
    runs = [r for r in doc["runs"] if r["element_bytes"] in (4, 8)
            and r.get("rows_per_request", 32) * (8 // r["warps_a_line"]) % 32 == 0]
    tmp = tempfile.mkdtemp(prefix="memsim-fit-")
    path = os.path.join(tmp, os.path.basename(a.profile))

    def predicted(cost, lane, chosen):
        prof = json.loads(json.dumps(base))
        prof["cost"]["read_back"]["ps_per_byte"][lane] = cost
        json.dump(prof, open(path, "w"))
        return [predict(a.memsim, path, r) for r in chosen]

    # Which runs a cost applies to, from the base profile's prediction: read-back charged, in range.
    first = [predict(a.memsim, a.profile, r) for r in runs]
    out = ["# lab/calibration/fit_held_open_time.py %s %s" % (os.path.relpath(a.profile, ROOT),
                                                               os.path.relpath(a.runs, ROOT)),
           "# runs: memsim-held-open on an %s, %s" % (doc["device"], doc["date"])]
    fitted = {}
    for lane, e in ((0, 4), (1, 8)):
        chosen = [(r, p) for r, p in zip(runs, first)
                  if r["element_bytes"] == e and p["read_back_fraction"] >= 0.05 and p["lines_open_at_once"] <= 300000]
        if not chosen:
            continue
        cost0 = base["cost"]["read_back"]["ps_per_byte"][lane]

        def loss(cost):
            ps = predicted(cost, lane, [r for r, _ in chosen])
            return sum(math.log(p["time_us"] / r["median_us"]) ** 2 for (r, _), p in zip(chosen, ps)), ps

        lo, hi = 0.0, 4 * max(cost0, 1.0)
        for _ in range(18):  # golden-section search on the cost
            x1, x2 = hi - (hi - lo) * 0.618, lo + (hi - lo) * 0.618
            if loss(x1)[0] < loss(x2)[0]:
                hi = x2
            else:
                lo = x1
        cost = round((lo + hi) / 2, 3)
        before = [math.log(p["time_us"] / r["median_us"]) for r, p in chosen]
        after_ps = loss(cost)[1]
        after = [math.log(p["time_us"] / r["median_us"]) for (r, _), p in zip(chosen, after_ps)]
        rms = lambda xs: math.sqrt(sum(x * x for x in xs) / len(xs))
        out.append("%d-byte lanes: %d runs, ps_per_byte %.3f -> %.3f; rms log error %.3f -> %.3f, worst %+.1f%% -> %+.1f%%"
                   % (e, len(chosen), cost0, cost, rms(before), rms(after), 100 * (math.exp(max(before, key=abs)) - 1),
                      100 * (math.exp(max(after, key=abs)) - 1)))
        for (r, _), p in zip(chosen, after_ps):
            out.append("  %-52s bps %d  measured %8.1f  predicted %8.1f  %+6.1f%%" % (
                r["name"], r["blocks_per_sm"], r["median_us"], p["time_us"], 100 * (p["time_us"] / r["median_us"] - 1)))
        fitted[lane] = cost
    text = "\n".join(out) + "\n"
    if a.report:
        open(a.report, "w").write(text)
    print(text, end="")
    if a.write:
        prof = json.load(open(a.profile))
        for lane, cost in fitted.items():
            prof["cost"]["read_back"]["ps_per_byte"][lane] = cost
        with open(a.profile, "w") as f:
            json.dump(prof, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
