#!/usr/bin/env python3
"""Fits a profile's cost of a byte read back (cost.read_back.ps_per_byte, by lane width) and of a sector written
in pieces from two warps of a block or more (cost.sector_from_warps_ps) to memsim-held-open's timed runs, every
other constant held: each run is replayed by memsim itself (its addresses as a kernel file,
lab/calibration/held_open_kernel.hpp, with the run's P, Q, R and order as defines, its blocks an SM as a
register count) and predicted once with the profile as it stands; the three costs enter only the partial-store
term, so the time of each run at other costs is that term moved by them and the terms combined again as
model/cost.cpp combines them (checked against memsim's own prediction at the start and at the fitted costs).
Fitted: the costs that minimise the squared log error of the runs with partial pieces whose lines are open at
most 300,000 at once (the read-back fit's range), the sector cost on a grid and, at each, the read-back cost of
each lane width (4 and 8 bytes: the runs of u32 and u64 elements) by golden-section search. Every sector of
these runs takes its pieces from two warps or more (P = 2, 4 or 8 warps a line), in pieces of 4, 8 or 16 bytes:
the sector cost is told from the read-back's by the pieces' size at the same bytes read back.
Microbenchmark runs only.

    lab/calibration/fit_held_open_time.py MEMSIM PROFILE RUNS.json [--report FILE] [--write]

--write puts the fitted costs into PROFILE (model/devices/NAME.json: its read_back.ps_per_byte[0] and [1] and
its sector_from_warps_ps).
"""
import argparse
import concurrent.futures
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


def combined(terms, overlap_p, partial):
    """The time model/cost.cpp gives for these terms (µs) with the partial-store term set to `partial`."""
    residency = terms["latency (too few bytes in flight)"] + terms["block scheduling (per-block overhead)"]
    parts = [terms["DRAM bandwidth"], terms["L2 sector traffic"], terms["crossbar into L2 (stores)"],
             terms["L1/shared wavefronts"], terms["instruction issue"], terms.get("L1 lines for loads in flight", 0.0),
             max(residency, partial)]
    body = sum(x ** overlap_p for x in parts) ** (1 / overlap_p)
    return max(body, terms["block launch rate (too many blocks)"]) + terms["launch overhead"]


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
    cost0 = base["cost"]
    ps0 = list(cost0["read_back"]["ps_per_byte"][:3])
    sector0 = cost0.get("sector_from_warps_ps", 0.0)
    p = cost0["overlap_p"]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    first = list(pool.map(lambda r: predict(a.memsim, a.profile, r), runs))
    chosen = [(r, q) for r, q in zip(runs, first)
              if q["terms_us"]["L2 partial-sector stores"] > 0 and q["lines_open_at_once"] <= 300000]

    def lane_of(r):
        """The lane class whose read-back cost the run's bytes take (core/kernel_counts.hpp, partial_store_class):
        4-byte elements 0; 8-byte elements 1, or 2 (16 bytes, held) in pieces of two elements."""
        if r["element_bytes"] == 4:
            return 0
        return 2 if 32 // r.get("rows_per_request", 32) * r["element_bytes"] > 8 else 1

    def times(sector, ps):
        out = []
        for r, q in chosen:
            lane = lane_of(r)
            partial = (q["terms_us"]["L2 partial-sector stores"] + (q.get("read_back_us") or 0.0) * (ps[lane] / ps0[lane] - 1)
                       + q["sectors_from_warps"] * (sector - sector0) * 1e-6)
            out.append(combined(q["terms_us"], p, partial))
        return out

    worst = max(abs(t / q["time_us"] - 1) for t, (_, q) in zip(times(sector0, ps0), chosen))
    if worst > 1e-6:
        raise SystemExit("fit_held_open_time.py: the terms combined here differ from memsim's time by %.2g: "
                         "model/cost.cpp combines them otherwise now" % worst)

    def loss(sector, ps):
        return sum(math.log(t / r["median_us"]) ** 2 for t, (r, _) in zip(times(sector, ps), chosen))

    def best_ps(sector):  # the 16-byte class's cost stays as the profile has it
        ps = list(ps0)
        for lane in (0, 1):
            lo, hi = 0.0, 4 * max(ps0[lane], 1.0)
            for _ in range(40):  # golden-section search on the read-back cost of this lane width
                x1, x2 = hi - (hi - lo) * 0.618, lo + (hi - lo) * 0.618
                if loss(sector, ps[:lane] + [x1] + ps[lane + 1:]) < loss(sector, ps[:lane] + [x2] + ps[lane + 1:]):
                    hi = x2
                else:
                    lo = x1
            ps[lane] = (lo + hi) / 2
        return ps

    grid = [i * 0.25 for i in range(0, 161)]  # 0 to 40 ps a sector
    fits = {sec: best_ps(sec) for sec in grid}  # grid[0] = 0: the read-back costs alone
    sector = min(grid, key=lambda sec: loss(sec, fits[sec]))
    ps = [round(x, 3) for x in fits[sector][:2]] + ps0[2:]
    without = fits[0.0]
    rms = lambda xs: math.sqrt(sum(x * x for x in xs) / len(xs))
    logs = lambda ts: [math.log(t / r["median_us"]) for t, (r, _) in zip(ts, chosen)]
    before, alone, after = logs(times(sector0, ps0)), logs(times(0.0, without)), logs(times(sector, ps))
    # memsim itself at the fitted costs: the check that the combination above is the model's.
    prof = json.loads(json.dumps(base))
    prof["cost"]["read_back"]["ps_per_byte"][:2] = ps[:2]
    prof["cost"]["sector_from_warps_ps"] = sector
    json.dump(prof, open(path, "w"))
    final = list(pool.map(lambda rq: predict(a.memsim, path, rq[0]), chosen))
    gap = max(abs(q["time_us"] / t - 1) for q, t in zip(final, times(sector, ps)))
    if gap > 1e-6:
        raise SystemExit("fit_held_open_time.py: memsim at the fitted costs differs from the fit's time by %.2g" % gap)
    pct = lambda x: 100 * (math.exp(x) - 1)
    mape = lambda xs: sum(abs(pct(x)) for x in xs) / len(xs)
    out = ["# lab/calibration/fit_held_open_time.py %s %s" % (os.path.relpath(a.profile, ROOT),
                                                               os.path.relpath(a.runs, ROOT)),
           "# runs: memsim-held-open on an %s, %s" % (doc["device"], doc["date"]),
           "%d runs with partial pieces, lines open at most 300,000 at once (%d of 4-byte elements, %d of 8-byte)"
           % (len(chosen), sum(r["element_bytes"] == 4 for r, _ in chosen), sum(r["element_bytes"] == 8 for r, _ in chosen)),
           "as the profile stood: ps_per_byte %.3f / %.3f, sector_from_warps_ps %.2f: rms log error %.3f, MAPE %.1f%%, "
           "worst %+.1f%%" % (ps0[0], ps0[1], sector0, rms(before), mape(before), pct(max(before, key=abs))),
           "read-back costs alone (sector_from_warps_ps 0): ps_per_byte %.3f / %.3f: rms log error %.3f, MAPE %.1f%%, "
           "worst %+.1f%%" % (without[0], without[1], rms(alone), mape(alone), pct(max(alone, key=abs))),
           "fitted: ps_per_byte %.3f / %.3f, sector_from_warps_ps %.2f: rms log error %.3f, MAPE %.1f%%, worst %+.1f%%"
           % (ps[0], ps[1], sector, rms(after), mape(after), pct(max(after, key=abs)))]
    by_piece = {}
    for x0, x1, x2, (r, _) in zip(before, alone, after, chosen):
        key = (r["element_bytes"], 32 // r.get("rows_per_request", 32) * r["element_bytes"])
        by_piece.setdefault(key, []).append((x0, x1, x2))
    out.append("mean error by element and piece (as the profile stood / read-back costs alone / fitted):")
    for (e, piece), xs in sorted(by_piece.items()):
        out.append("  %d-byte elements, %2d-byte pieces: %3d runs  %+6.1f%% / %+6.1f%% / %+6.1f%%" % (
            e, piece, len(xs), *(pct(sum(x[i] for x in xs) / len(xs)) for i in range(3))))
    for (r, _), q in zip(chosen, final):
        out.append("  %-52s bps %d  measured %8.1f  predicted %8.1f  %+6.1f%%" % (
            r["name"], r["blocks_per_sm"], r["median_us"], q["time_us"], 100 * (q["time_us"] / r["median_us"] - 1)))
    text = "\n".join(out) + "\n"
    if a.report:
        open(a.report, "w").write(text)
    print(text, end="")
    if a.write:
        prof = json.load(open(a.profile))
        prof["cost"]["read_back"]["ps_per_byte"][:2] = ps[:2]
        prof["cost"]["sector_from_warps_ps"] = sector
        with open(a.profile, "w") as f:
            json.dump(prof, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
