#!/usr/bin/env python3
"""Fits the share of the L2's lines that hold lines open over rounds (cost.read_back.held_open.past_l2_share,
model/cost.cpp) to memsim-held-open's runs and Nsight Compute's DRAM counts of them:

    e = e_fit + (pieces - 1) x max(0, 1 - share x L / U)

e: dram__bytes_read.sum beyond the input, over the output (the read-back); e_fit: the profile's read-back of lines
held open (cost.read_back.held_open, fitted up to 300,000 lines: about 1 once the lines open pass that); U: the
lines held open at once, each counted whole (memsim's held_lines_open); L: the L2's lines (l2_bytes / 128);
pieces: the store requests writing part of each sector of those lines (memsim's pieces_per_held_sector). Past
share x L lines, a piece after a sector's first finds its line evicted with the chance that a line is not held,
and the L2 reads the sector back once more: the runs read back up to 3.5 times the output where e_fit stops at 1.

memsim replays each run (lab/calibration/held_open_kernel.hpp, the arguments fit_held_open_time.py gives it) with
the profile as it is; the share is found by golden-section search on the squared error of e over the runs with U
past 0.4 L (under it no share in the search's range prices anything). Microbenchmark runs only: nothing of the
suite's kernels or of the held-out sweep is read.

    lab/calibration/fit_past_l2.py MEMSIM PROFILE RUNS.json:RUNS.ncu.csv [...] [--report FILE] [--write]

--write sets the share in PROFILE (its other text untouched); restamp the constants' hash after
(scripts/stamp_constants_hash.py PROFILE).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_held_open_time  # noqa: E402  (memsim's arguments for a run)
import fit_held_open  # noqa: E402  (Nsight Compute's counts by launch)

LO, HI = 0.3, 1.5  # the shares searched


def load(pair):
    json_path, csv_path = pair.split(":")
    doc = json.load(open(json_path))
    counters = fit_held_open.ncu_by_id(csv_path)
    if len(counters) != len(doc["runs"]):
        raise SystemExit("%s has %d launches, %s %d runs" % (csv_path, len(counters), json_path, len(doc["runs"])))
    out = doc["output_bytes"]
    for i, r in enumerate(doc["runs"]):
        r["e"] = (counters[i]["dram__bytes_read.sum"] - out) / out
        r["source"] = os.path.basename(json_path)
    return doc, doc["runs"]


def replay(memsim, profile, run):
    try:
        args = fit_held_open_time.memsim_args(run)
    except KeyError:
        return None
    out = subprocess.run([memsim, *args, "--device", profile], capture_output=True, text=True)
    if out.returncode != 0:
        return None  # a block memsim cannot lay out (fit_held_open_time.py leaves the same out)
    p = json.loads(out.stdout)["prediction"]
    if p["occupancy"]["blocks_per_sm"] != run["blocks_per_sm"] or p["held_line_share"] <= 0:
        return None
    return p


def model(r, share, l2_lines):
    h = r["held_share"]
    evicted = max(0.0, 1 - share * l2_lines / r["U"]) if r["U"] > 0 else 0.0
    return r["e_rest"] + h * (r["pieces"] - 1) * evicted


def sse(runs, share, l2_lines):
    return sum((model(r, share, l2_lines) - r["e"]) ** 2 for r in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("memsim")
    ap.add_argument("profile")
    ap.add_argument("runs", nargs="+", help="RUNS.json:RUNS.ncu.csv")
    ap.add_argument("--report")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    prof = json.load(open(a.profile))
    l2_lines = prof["l2_bytes"] / prof.get("memory", {}).get("line_bytes", 128)
    runs, devices = [], set()
    for pair in a.runs:
        doc, rs = load(pair)
        devices.add(doc["device"])
        for r in rs:
            if r.get("sequential"):
                continue
            p = replay(a.memsim, a.profile, r)
            if p is None or p["pieces_per_held_sector"] <= 1:
                continue
            r["U"], r["pieces"], r["held_share"] = p["held_lines_open"], p["pieces_per_held_sector"], p["held_line_share"]
            # The read-back without the past-L2 part, whatever share the profile holds now.
            r["e_rest"] = p["read_back_fraction"] - r["held_share"] * p["past_l2_read_back"]
            runs.append(r)
    if len(devices) != 1:
        raise SystemExit("fit_past_l2.py: runs from %s: one GPU at a time" % ", ".join(sorted(devices)))
    fitted = [r for r in runs if r["U"] > LO * l2_lines]
    if not fitted:
        raise SystemExit("fit_past_l2.py: no run holds more than %.0f lines open" % (LO * l2_lines))
    lo, hi = LO, HI
    for _ in range(60):
        x1, x2 = hi - (hi - lo) * 0.618, lo + (hi - lo) * 0.618
        if sse(fitted, x1, l2_lines) < sse(fitted, x2, l2_lines):
            hi = x2
        else:
            lo = x1
    share = (lo + hi) / 2

    def rms(rs, s):
        return math.sqrt(sum((model(r, s, l2_lines) - r["e"]) ** 2 for r in rs) / len(rs)) if rs else float("nan")

    kinds = {"at once": lambda r: "a step a line" not in r["name"], "a step a line": lambda r: "a step a line" in r["name"]}
    out = ["# lab/calibration/fit_past_l2.py %s %s %s" % (a.memsim, a.profile, " ".join(a.runs)),
           "# runs: memsim-held-open on an %s; the L2's lines: %.0f" % (devices.pop(), l2_lines),
           "fitted on %d runs (U past %.0f lines): past_l2_share %.3f (%.0f lines)" % (
               len(fitted), LO * l2_lines, share, share * l2_lines),
           "read-back, rms error over them: %.3f without the term, %.3f with it" % (
               math.sqrt(sum((r["e_rest"] - r["e"]) ** 2 for r in fitted) / len(fitted)), rms(fitted, share))]
    for k, f in kinds.items():
        rs = [r for r in fitted if f(r)]
        if rs:
            worst = max(rs, key=lambda r: abs(model(r, share, l2_lines) - r["e"]))
            out.append("  %s (%d runs): rms %.3f without, %.3f with; worst %s at %d blocks an SM, %.2f measured, %.2f "
                       "fitted" % (k, len(rs), math.sqrt(sum((r["e_rest"] - r["e"]) ** 2 for r in rs) / len(rs)),
                                   rms(rs, share), worst["name"], worst["blocks_per_sm"], worst["e"],
                                   model(worst, share, l2_lines)))
    out += ["", "| run | file | blocks / SM | U (lines held open) | pieces a sector | read back, measured | without | fitted |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(runs, key=lambda r: (r["name"], -r["blocks_per_sm"], r["source"])):
        out.append("| %s%s | %s | %d | %.0f | %.1f | %.3f | %.3f | %.3f |" % (
            r["name"], "" if r in fitted else " (under the range)", r["source"], r["blocks_per_sm"], r["U"],
            r["pieces"], r["e"], r["e_rest"], model(r, share, l2_lines)))
    text = "\n".join(out) + "\n"
    if a.report:
        open(a.report, "w").write(text)
    print(text, end="")
    if a.write:
        src = open(a.profile).read()
        block = re.search(r'"held_open": \{', src)
        if not block:
            raise SystemExit("fit_past_l2.py: %s has no cost.read_back.held_open to write into" % a.profile)
        if '"past_l2_share"' in src:
            src = re.sub(r'"past_l2_share": [0-9.eE+-]+', '"past_l2_share": %.3f' % share, src, count=1)
        else:
            indent = re.search(r'\n( *)"lines"', src[block.end():]).group(1)
            at = block.end()
            src = src[:at] + '\n%s"past_l2_share": %.3f,' % (indent, share) + src[at:]
        open(a.profile, "w").write(src)


if __name__ == "__main__":
    main()
