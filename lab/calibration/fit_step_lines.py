#!/usr/bin/env python3
"""Fits how many of a block's steps hold their lines open at once (cost.read_back.steps_open, model/cost.hpp) to
memsim-step-lines' runs (lab/calibration/step_lines.cu) and Nsight Compute's DRAM counts of them.

A block that writes a fresh set of lines each step, each line from G warps at the same step and closed in it,
holds D of its S steps' lines open at once: D = 1 if its warps kept step, S if all were open for the whole
block. The read-back's curve for such lines (fitted on memsim-partial-lines, one round a block) is

    e = wf x per_log_lines x ln(L / from_lines),  L = D x (lines a step) x blocks resident

with wf the profile's factor for the warps that write a sector (2: 1; 4 and 8: sector_warp_factors). Each run's
D is read off its measured e (dram__bytes_read.sum beyond the input, over the output: every store is a partial
piece) by running the curve backwards; then D = min(S, 1 + spread x (S - 1)^power) is fitted by least squares
on e over the runs with S > 1 and a measured e the curve can invert (e > 0.01, and under 0.95: past it the
curve saturates), by a grid over power and spread: apart for the sectors
written by 2, 4 and 8 warps (16-, 8- and 4-byte pieces of a 32-byte sector), whose D grows at different rates
(the profile takes these: on the H200's runs of 2026-11-29 they leave an rms error of e of 0.048, one fit for
all 0.088, D = S 0.154, D = 1 0.174), and once for all, printed beside them. The S = 1 runs are the curve's own check (D should be near 1 there): printed, not
fitted.
Microbenchmark runs only: nothing of the suite's kernels or of the held-out sweep is read.

    lab/calibration/fit_step_lines.py RUNS.json RUNS.ncu.csv --profile model/devices/h200.json [--report FILE]
"""
import argparse
import json
import math
import sys

from fit_held_open import ncu_by_id  # the same ncu --csv layout (one row a metric)


def sector_factor(read_back, warps):
    if warps <= 1:
        return read_back["one_warp_factor"]
    if warps <= 2:
        return 1.0
    at4, at8 = read_back["sector_warp_factors"]
    if warps >= 8:
        return at8
    return at4 ** math.log2(warps / 2.0) if warps <= 4 else at4 * (at8 / at4) ** math.log2(warps / 4.0)


def load(json_path, csv_path, read_back):
    doc = json.load(open(json_path))
    counters = ncu_by_id(csv_path)
    if len(counters) != len(doc["runs"]):
        raise ValueError("%s has %d launches, %s %d runs" % (csv_path, len(counters), json_path, len(doc["runs"])))
    out = doc["output_bytes"]
    runs = []
    for i, r in enumerate(doc["runs"]):
        m = counters[i]
        size, k, w = r["element_bytes"], r["elements_a_request_row"], r["warps"]
        line_elems, rows = 128 // size, 32 // k
        r["lines_a_step"] = rows * w * k / line_elems  # each from line_elems / k >= 8 warps: counted whole
        r["sector_warps"] = (32 // size) // k
        r["wf"] = sector_factor(read_back, r["sector_warps"])
        r["L_step"] = r["lines_a_step"] * r["blocks_per_sm"] * doc["sms"]
        r["e"] = (m["dram__bytes_read.sum"] - out) / out
        slope = r["wf"] * read_back["per_log_lines"]
        r["D"] = read_back["from_lines"] * math.exp(r["e"] / slope) / r["L_step"] if r["e"] > 0.01 else float("nan")
        runs.append(r)
    return doc, runs


def steps_open(spread, power, s):
    return min(float(s), 1.0 + spread * (s - 1) ** power)


def curve(read_back, r, d):
    lines = d * r["L_step"]
    return max(0.0, min(1.0, r["wf"] * read_back["per_log_lines"] * math.log(lines / read_back["from_lines"])))


def sse(read_back, runs, spread, power):
    return sum((curve(read_back, r, steps_open(spread, power, r["steps"])) - r["e"]) ** 2 for r in runs)


def fit(read_back, runs):
    """(sse, spread, power): a grid over power (0 to 1.5 by 0.05) and spread (0.001 to 64, geometric), then the
    spread refined by a geometric step a tenth as wide around the best."""
    best = None
    for power in [p / 20 for p in range(0, 31)]:
        for i in range(0, 161):
            spread = 0.001 * 64000 ** (i / 160)
            err = sse(read_back, runs, spread, power)
            if best is None or err < best[0]:
                best = (err, spread, power)
    _, spread0, power = best
    for i in range(-20, 21):
        spread = spread0 * (64000 ** (1 / 160)) ** (i / 20)
        err = sse(read_back, runs, spread, power)
        if err < best[0]:
            best = (err, spread, power)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("ncu")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--report")
    a = ap.parse_args()
    read_back = json.load(open(a.profile))["cost"]["read_back"]
    doc, runs = load(a.runs, a.ncu, read_back)
    out = ["memsim-step-lines on %s (%s), %d runs; the profile's curve: %s" %
           (doc["device"], doc["date"], len(runs), a.profile)]
    out.append("%-28s %6s %9s %6s %6s %7s" % ("run", "blk/SM", "L a step", "e", "wf", "D"))
    for r in runs:
        out.append("%-28s %6d %9.0f %6.3f %6.3f %7.2f" % (r["name"], r["blocks_per_sm"], r["L_step"], r["e"], r["wf"], r["D"]))
    fitted = [r for r in runs if r["steps"] > 1 and 0.01 < r["e"] < 0.95]
    err, spread, power = fit(read_back, fitted)
    out.append("fitted on %d runs (S > 1, 0.01 < e < 0.95), all together: D = min(S, 1 + %.4f x (S - 1)^%.2f); "
               "rms error of e %.3f" % (len(fitted), spread, power, math.sqrt(err / len(fitted))))
    spreads, powers, total = [], [], 0.0
    for warps in (2, 4, 8):
        mine = [r for r in fitted if r["sector_warps"] == warps]
        e_, s_, p_ = fit(read_back, mine)
        spreads.append(round(s_, 4))
        powers.append(p_)
        total += e_
        out.append("  sectors from %d warps, %d runs: D = min(S, 1 + %.4f x (S - 1)^%.2f); rms error of e %.3f"
                   % (warps, len(mine), s_, p_, math.sqrt(e_ / len(mine))))
    out.append("  apart, over the %d runs: rms error of e %.3f" % (len(fitted), math.sqrt(total / len(fitted))))
    out.append('  cost.read_back.steps_open: {"spread": %s, "power": %s}' % (json.dumps(spreads), json.dumps(powers)))
    for name, d in (("D = S (every step's lines open)", lambda r: r["steps"]), ("D = 1 (one step's)", lambda r: 1)):
        e2 = sum((curve(read_back, r, d(r)) - r["e"]) ** 2 for r in fitted)
        out.append("  against %s: rms error of e %.3f" % (name, math.sqrt(e2 / len(fitted))))
    ones = [r for r in runs if r["steps"] == 1 and r["e"] > 0.01]
    if ones:
        out.append("S = 1 (the curve's check, not fitted): D from %.2f to %.2f over %d runs reading back" %
                   (min(r["D"] for r in ones), max(r["D"] for r in ones), len(ones)))
    text = "\n".join(out) + "\n"
    print(text, end="")
    if a.report:
        open(a.report, "w").write(text)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:  # a missing or malformed input: one line
        print("fit_step_lines.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(2)
