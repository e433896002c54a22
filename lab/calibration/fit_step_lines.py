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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: the report's output, the error rule)
from fit_held_open import ncu_by_id  # noqa: E402  (the same ncu --csv layout, one row a metric)


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
        # A block's part of each line it writes (1: whole lines; 1/2 or 1/4 where the block is narrower than a
        # line, the block a grid row on writing the rest) and the warps that write that part.
        r["line_share"] = min(1.0, w * k / line_elems)
        r["line_warps"] = min(w, line_elems // k)
        r["lines_touched"] = rows * math.ceil(w * k / line_elems)
        r["lines_a_step"] = rows * w * k / line_elems  # whole lines: each from line_elems / k >= 8 warps
        r["sector_warps"] = (32 // size) // k
        r["wf"] = sector_factor(read_back, r["sector_warps"])
        r["sms"] = doc["sms"]
        r["L_step"] = r["lines_a_step"] * r["blocks_per_sm"] * doc["sms"]
        r["e"] = (m["dram__bytes_read.sum"] - out) / out
        slope = r["wf"] * read_back["per_log_lines"]
        r["D"] = read_back["from_lines"] * math.exp(r["e"] / slope) / r["L_step"] if r["e"] > 0.01 else float("nan")
        runs.append(r)
    return doc, runs


def steps_open(spread, power, s):
    return min(float(s), 1.0 + spread * (s - 1) ** power)


def e_at(read_back, wf, lines):
    """The read-back's curve: e at `lines` open at once, for sectors of factor wf (0 at from_lines and below)."""
    if lines <= read_back["from_lines"]:
        return 0.0
    return max(0.0, min(1.0, wf * read_back["per_log_lines"] * math.log(lines / read_back["from_lines"])))


def curve(read_back, r, d):
    return e_at(read_back, r["wf"], d * r["L_step"])


def part_line_e(read_back, r, weight):
    """e for a run whose block writes part of each line, each such line counting `weight` of a line, at the
    profile's steps open."""
    lines = profile_steps_open(read_back, r) * r["lines_touched"] * weight * r["blocks_per_sm"] * r["sms"]
    return e_at(read_back, r["wf"], lines)


def profile_steps_open(read_back, r):
    """D for run r as the profile has it (cost.read_back.steps_open, by the warps that write a sector; S where
    the profile leaves it out)."""
    spread, power = read_back["steps_open"]["spread"], read_back["steps_open"]["power"]
    i = 0 if r["sector_warps"] <= 2 else 1 if r["sector_warps"] <= 5 else 2
    return steps_open(spread[i], power[i], r["steps"]) if spread[i] >= 0 else float(r["steps"])


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


# How a line a block writes part of counts among the lines open at once, L (the weight times the lines it
# touches): memsim's rule (the warps that write the block's part as a share of 8, at most 1, times the share of
# the line's sectors it writes; sim/partial_lines.hpp), and two it is judged beside.
def share_weight(warps, share, exponent):
    """A candidate weight (not memsim's: tried on 2026-12-06, the held-out sets judged it worse): the warps against
    the 8 x share that write such a part of a line whole, at most 1, times the share to the exponent."""
    return min(1.0, warps / (8.0 * share)) * share ** exponent


HALF_LINE_WEIGHTS = (
    ("memsim: min(1, G / 8) x share", lambda r: min(1.0, r["line_warps"] / 8.0) * r["line_share"]),
    ("share alone", lambda r: r["line_share"]),
    ("whole line", lambda r: 1.0),
    ("min(1, G / (8 share)) x share^0.6", lambda r: share_weight(r["line_warps"], r["line_share"], 0.6)),
)


def half_line_report(read_back, runs):
    """The runs whose blocks write part of each line: each one's measured e beside the curve's, with the steps
    open at once as the profile has them (cost.read_back.steps_open, fitted on whole lines) and each weight of
    such a line; then the weight each run's e asks for (the curve run backwards), by the group of warps G that
    writes a block's part. Not fitted into steps_open: the weight is what these runs judge."""
    out = ["", "Lines a block writes part of (%d runs): measured e beside the curve's, with the profile's steps "
           "open and each weight of such a line" % len(runs)]
    out.append("%-31s %6s %5s %3s %6s %7s %7s %7s %7s %8s" %
               ("run", "blk/SM", "share", "G", "e", "memsim", "share", "whole", "s^0.6", "weight"))
    for r in runs:
        # The weight this run's e asks for: the curve backwards, at the profile's steps open.
        slope = r["wf"] * read_back["per_log_lines"]
        base = profile_steps_open(read_back, r) * r["lines_touched"] * r["blocks_per_sm"] * r["sms"]
        readable = 0.01 < r["e"] < 0.95
        r["weight"] = read_back["from_lines"] * math.exp(r["e"] / slope) / base if readable else float("nan")
        out.append("%-31s %6d %5.2f %3d %6.3f %7.3f %7.3f %7.3f %7.3f %8.3f" % (
            r["name"], r["blocks_per_sm"], r["line_share"], r["line_warps"], r["e"],
            *(part_line_e(read_back, r, w(r)) for _, w in HALF_LINE_WEIGHTS), r["weight"]))
    # Apart by where the rest of each line comes from: the block a grid row on, or the blocks next in launch
    # order (memsim-step-lines' " next" runs).
    for rest, label in ((False, "the rest a grid row on"), (True, "the rest from the next blocks")):
        mine = [r for r in runs if bool(r.get("rest_from_next")) == rest]
        if not mine:
            continue
        out.append(" %s (%d runs), mean e %.3f:" % (label, len(mine), sum(r["e"] for r in mine) / len(mine)))
        for name, w in HALF_LINE_WEIGHTS:
            sq = [(part_line_e(read_back, r, w(r)) - r["e"]) ** 2 for r in mine]
            out.append("  %-38s rms error of e %.3f" % (name, math.sqrt(sum(sq) / len(sq))))
        for g in sorted({r["line_warps"] for r in mine}):
            ws = sorted(r["weight"] for r in mine if r["line_warps"] == g and r["weight"] == r["weight"])
            if ws:
                out.append("  G = %2d: the weight asked, median %.3f over %d runs reading back (from %.3f to %.3f)"
                           % (g, ws[len(ws) // 2], len(ws), ws[0], ws[-1]))
    return out


def spread_runs(json_path, csv_path, read_back):
    """memsim-partial-lines' blocks writing one sector of each of 128 lines, a sector's pieces from 8 / P warps
    and each line's from all 8 (its "one sector of 128 lines" runs): (blocks an SM, the sector factor, e)."""
    from fit_read_back import load_runs  # that program's JSON and ncu layout
    runs, _ = load_runs(json_path, csv_path)
    sms = json.load(open(json_path))["sms"]
    return [(r["blocks_per_sm"], sms,
             sector_factor(read_back, {4: 8, 8: 4, 16: 2}[r["piece_bytes"]]), r["read_back"], r["name"])
            for r in runs]


def share_exponent_report(read_back, half, spread):
    """The exponent of the share in share_weight, fitted by least squares on e over the half- and quarter-line
    runs and the spread runs together (a grid from 0 to 1.5 by 0.01), and the rms error of each set under the
    weight memsim counts and under the fit."""
    def errors(weight):  # weight(warps, share) -> (sum of squares over half, over spread)
        a = sum((part_line_e(read_back, r, weight(r["line_warps"], r["line_share"])) - r["e"]) ** 2 for r in half)
        b = sum((e_at(read_back, wf, 128 * weight(8, 0.25) * blocks * sms) - e) ** 2
                for blocks, sms, wf, e, _ in spread)
        return a, b

    def rms(pair):
        return (math.sqrt(pair[0] / len(half)), math.sqrt(pair[1] / len(spread)),
                math.sqrt(sum(pair) / (len(half) + len(spread))))

    old = rms(errors(lambda g, s: min(1.0, g / 8.0) * s))
    best = min((sum(errors(lambda g, s, x=x / 100: share_weight(g, s, x))), x / 100) for x in range(0, 151))
    fitted = rms(errors(lambda g, s: share_weight(g, s, best[1])))
    out = ["", "The share's exponent, fitted on the %d part-line runs and %d spread runs together: %.2f" %
           (len(half), len(spread), best[1])]
    out.append("  rms error of e (part lines, spread, all): memsim's count %.3f %.3f %.3f; fitted %.3f %.3f %.3f" %
               (old + fitted))
    for blocks, sms, wf, e, name in spread:
        out.append("  %-46s %d blk/SM: e %.3f, memsim's count %.3f, fitted %.3f" % (
            name, blocks, e, e_at(read_back, wf, 128 * 0.25 * blocks * sms),
            e_at(read_back, wf, 128 * share_weight(8, 0.25, best[1]) * blocks * sms)))
    return out


def staged_report(runs):
    """The " staged" runs (every load, a barrier, every store) beside the same addresses written step by step: the
    read-back e and the time of each pair at the same blocks an SM, then their means by whole and part lines."""
    direct = {(r["name"], r["blocks_per_sm"]): r for r in runs if not r.get("staged")}
    pairs = []
    for r in runs:
        if r.get("staged") and r["name"].endswith(" staged"):
            d = direct.get((r["name"][:-len(" staged")], r["blocks_per_sm"]))
            if d:
                pairs.append((d, r))
    out = ["staged runs (every load, a barrier, every store) beside the same stores step by step, %d pairs:"
           % len(pairs),
           "%-28s %6s %8s %8s %10s %10s" % ("run", "blk/SM", "e step", "e staged", "us step", "us staged")]
    for d, r in pairs:
        out.append("%-28s %6d %8.3f %8.3f %10.1f %10.1f" % (d["name"], d["blocks_per_sm"], d["e"], r["e"],
                                                            d["median_us"], r["median_us"]))
    for label, keep in (("whole lines", lambda d: d["line_share"] == 1), ("part lines", lambda d: d["line_share"] < 1)):
        mine = [(d, r) for d, r in pairs if keep(d)]
        for steps in ("S = 1", "S > 1"):
            some = [(d, r) for d, r in mine if (d["steps"] == 1) == (steps == "S = 1")]
            if some:
                n = len(some)
                out.append("  %s, %s, %d pairs: mean e %.3f step by step, %.3f staged; time staged / step by step %.2f"
                           % (label, steps, n, sum(d["e"] for d, _ in some) / n, sum(r["e"] for _, r in some) / n,
                              sum(r["median_us"] / d["median_us"] for d, r in some) / n))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("ncu")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--report")
    ap.add_argument("--spread", nargs=2, metavar=("JSON", "CSV"),
                    help="memsim-partial-lines' one-sector-of-128-lines runs: fit the share's exponent with them")
    a = ap.parse_args()
    read_back = json.load(open(a.profile))["cost"]["read_back"]
    doc, every_run = load(a.runs, a.ncu, read_back)
    runs = [r for r in every_run if not r.get("staged")]  # the staged runs have a report of their own (below)
    out = ["memsim-step-lines on %s (%s), %d runs; the profile's curve: %s" %
           (doc["device"], doc["date"], len(runs), a.profile)]
    out.append("%-28s %6s %9s %6s %6s %7s" % ("run", "blk/SM", "L a step", "e", "wf", "D"))
    for r in runs:
        out.append("%-28s %6d %9.0f %6.3f %6.3f %7.2f" % (r["name"], r["blocks_per_sm"], r["L_step"], r["e"], r["wf"], r["D"]))
    fitted = [r for r in runs if r["steps"] > 1 and 0.01 < r["e"] < 0.95 and r["line_share"] == 1]
    if fitted:  # a file of half-line runs alone (their own report below) fits nothing here
        err, spread, power = fit(read_back, fitted)
        out.append("fitted on %d runs (S > 1, 0.01 < e < 0.95), all together: D = min(S, 1 + %.4f x (S - 1)^%.2f); "
                   "rms error of e %.3f" % (len(fitted), spread, power, math.sqrt(err / len(fitted))))
        spreads, powers, total = [], [], 0.0
        for warps in (2, 4, 8):
            mine = [r for r in fitted if r["sector_warps"] == warps]
            if not mine:  # a file with some of the runs (a subset run by --match) may lack a piece size
                continue
            e_, s_, p_ = fit(read_back, mine)
            spreads.append(round(s_, 4))
            powers.append(p_)
            total += e_
            out.append("  sectors from %d warps, %d runs: D = min(S, 1 + %.4f x (S - 1)^%.2f); rms error of e %.3f"
                       % (warps, len(mine), s_, p_, math.sqrt(e_ / len(mine))))
        out.append("  apart, over the %d runs: rms error of e %.3f" % (len(fitted), math.sqrt(total / len(fitted))))
        out.append('  cost.read_back.steps_open: {"spread": %s, "power": %s}'
                   % (json.dumps(spreads), json.dumps(powers)))
        for name, d in (("D = S (every step's lines open)", lambda r: r["steps"]), ("D = 1 (one step's)", lambda r: 1)):
            e2 = sum((curve(read_back, r, d(r)) - r["e"]) ** 2 for r in fitted)
            out.append("  against %s: rms error of e %.3f" % (name, math.sqrt(e2 / len(fitted))))
    ones = [r for r in runs if r["steps"] == 1 and r["e"] > 0.01 and r["line_share"] == 1]
    if ones:
        out.append("S = 1 (the curve's check, not fitted): D from %.2f to %.2f over %d runs reading back" %
                   (min(r["D"] for r in ones), max(r["D"] for r in ones), len(ones)))
    half = [r for r in runs if r["line_share"] < 1]
    if half:
        out += half_line_report(read_back, half)
        far = [r for r in half if not r.get("rest_from_next")]
        if a.spread and far:
            out += share_exponent_report(read_back, far, spread_runs(a.spread[0], a.spread[1], read_back))
    if len(runs) < len(every_run):
        out += staged_report(every_run)
    memsim_run.emit_report(out, a.report)


if __name__ == "__main__":  # a missing or malformed input: one line, exit 2
    memsim_run.main_guard(main, also=(OSError, ValueError, KeyError, IndexError, TypeError))
