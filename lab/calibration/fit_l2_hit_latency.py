#!/usr/bin/env python3
"""Fits a profile's round trip of a load whose sectors the L2 already holds from the same warp's earlier requests
(cost.l2_hit_latency_us; sim/l2_requests.hpp: the L2 fetches 64 bytes a miss, so a warp that walks a line a
sector a load finds every second load's sectors there) to memsim-step-lines' timed runs, every other constant
held. The runs whose loads walk their lines so are the u32 runs with 4 elements a request row (K = 4) and more
than one step: each load reads one sector of 4 lines, the next step the next sector of the same lines. memsim
predicts each of them at each candidate cost (its addresses as a kernel file, step_lines_kernel.hpp, with its
blocks an SM as a register count), and the cost that minimises the squared log error of their times is kept,
by golden-section search between 0.05 and latency_us. Printed: every such run at the profile's cost and at the
fitted one. Microbenchmark runs only.

    lab/calibration/fit_l2_hit_latency.py MEMSIM PROFILE RUNS.json [RUNS.json ...] [--report FILE] [--write]

--write puts the fitted cost into PROFILE (model/devices/NAME.json: cost.l2_hit_latency_us).
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_held_open_time import golden, predict  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("memsim")
    ap.add_argument("profile")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--report")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    doc = json.load(open(a.profile))
    runs = []
    for path in a.runs:
        for r in json.load(open(path))["runs"]:
            if r["element_bytes"] == 4 and r["elements_a_request_row"] == 4 and r["steps"] > 1:
                key = (r["warps"], r["steps"], r["blocks_per_sm"])
                if key not in {(q["warps"], q["steps"], q["blocks_per_sm"]) for q in runs}:
                    runs.append(r)
    if not runs:
        raise SystemExit("no u32 K=4 run of more than one step in %s" % ", ".join(a.runs))
    cache = {}

    def times(cost):
        cost = round(cost, 4)
        if cost not in cache:
            d = json.loads(json.dumps(doc))
            d["cost"].pop("l2_hit_latency_us", None)
            if cost > 0:  # absent: no such charge
                d["cost"]["l2_hit_latency_us"] = cost
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(d, f)
            try:
                with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
                    preds = list(ex.map(lambda r: predict(a.memsim, f.name, r), runs))
            finally:
                os.unlink(f.name)
            if any(p["l2_read_requests"]["l2_hit_load_share"] <= 0 for p in preds):  # the replay's count
                raise SystemExit("memsim finds no load served by the L2 in a run that walks its lines")
            cache[cost] = [p["time_us"] for p in preds]
        return cache[cost]

    def loss(cost):
        return sum(math.log(t / r["median_us"]) ** 2 for t, r in zip(times(cost), runs))

    latency = doc["cost"]["latency_us"]
    before = 0.0  # the model without the charge, whatever the profile holds now
    fitted = golden(loss, 0.05, latency, steps=24)
    rms = lambda c: math.sqrt(loss(c) / len(runs))  # noqa: E731
    lines = ["%s: cost.l2_hit_latency_us fitted to %d memsim-step-lines runs (u32, K = 4, 2-16 steps; %s)" % (
                 os.path.basename(a.profile), len(runs), ", ".join(os.path.relpath(p) for p in a.runs)),
             "latency_us %.3f; l2_hit_latency_us %.3f (no such charge) before, %.3f fitted; rms log error %.3f before, %.3f fitted"
             % (latency, before, fitted, rms(before), rms(fitted)), "",
             "%-28s %5s %9s %9s %7s %9s %7s" % ("run", "bps", "measured", "before", "error", "fitted", "error")]
    t0, t1 = times(before), times(fitted)  # 0: no such charge (model/cost.cpp)
    for r, x, y in sorted(zip(runs, t0, t1), key=lambda z: (z[0]["blocks_per_sm"] * z[0]["warps"], z[0]["name"])):
        m = r["median_us"]
        lines.append("%-28s %5d %9.1f %9.1f %+6.1f%% %9.1f %+6.1f%%" % (
            r["name"], r["blocks_per_sm"], m, x, 100 * (x / m - 1), y, 100 * (y / m - 1)))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.report:
        open(a.report, "w").write(text)
    if a.write:  # one line beside latency_us, the rest of the file as it is
        text = open(a.profile).read()
        value = '"l2_hit_latency_us": %s' % round(fitted, 4)
        if '"l2_hit_latency_us"' in text:
            text = re.sub(r'"l2_hit_latency_us": [0-9.eE+-]+', value, text)
        else:
            m = re.search(r'\n( *)"latency_us": [^\n]*\n', text)
            if not m:
                raise SystemExit("%s has no cost.latency_us line" % a.profile)
            text = text[:m.end()] + m.group(1) + value + ",\n" + text[m.end():]
        json.loads(text)
        open(a.profile, "w").write(text)

if __name__ == "__main__":
    main()
