#!/usr/bin/env python3
"""Fits a profile's cost of a byte read back (cost.read_back.ps_per_byte, by lane width) and of a sector written
in pieces from two warps of a block or more, apart for the sectors of lines the block writes whole in one round
(cost.sector_from_warps_one_round_ps) and the others (cost.sector_from_warps_ps: lines held open over rounds, or
completed by another block), to
memsim-held-open's timed runs and, where given, memsim-step-lines', every other constant held: each run is
replayed by memsim itself (its addresses as a kernel file, lab/calibration/held_open_kernel.hpp or
step_lines_kernel.hpp, with the run's parameters as defines, its blocks an SM as a register count) and
predicted once with the profile as it stands; the four costs enter only the partial-store term, so the time of
each run at other costs is that term moved by them and the terms combined again as model/cost.cpp combines
them (checked against memsim's own prediction at the start and at the fitted costs). Which sectors are of lines
written whole in one round is memsim's count (sectors_from_warps_in_one_round), not worked out here.
Fitted: the costs that minimise the squared log error of the runs with partial pieces whose lines are open at
most 300,000 at once (the read-back fit's range), by golden-section search on each cost in turn until none
moves: the two sector costs (0 to 60 ps) and the read-back cost of each class (model/cost.cpp): 4-byte and
8-byte pieces of the runs of u32 and u64 elements, and pieces of 16 bytes a sector, from either (K elements a
request row: u32 at K = 4, u64 at K = 2), which read back alike. memsim-held-open's lines take their pieces from
2, 4 or 8 warps over 2 to 16 rounds; memsim-step-lines' from 8 to 32 warps in one step, each line closed in
it: the two sector costs are told apart by the benchmarks, and from the read-back's by the pieces' size at the
same bytes read back. Without step-lines runs the second cost has no run to fit it and stays tied to the
first. Printed beside them: one cost for both (the model before the two were told apart) and the read-back
costs alone.
Microbenchmark runs only.

    lab/calibration/fit_held_open_time.py MEMSIM PROFILE RUNS.json [--step-lines RUNS.json] [--report FILE] [--write]

--write puts the fitted costs into PROFILE (model/devices/NAME.json: its read_back.ps_per_byte[0], [1] and [2],
its sector_from_warps_ps and its sector_from_warps_one_round_ps).
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
STEP_KERNEL = os.path.join(ROOT, "lab", "calibration", "step_lines_kernel.hpp")
REGS_FOR = {8: 32, 6: 40, 5: 48, 4: 64, 3: 80, 2: 128}  # 256 threads a block: 65,536 registers an SM / (256 x regs)


def step_lines_args(run):
    """memsim's command line for a memsim-step-lines run (lab/calibration/step_lines_kernel.hpp)."""
    e, W, S, K = run["element_bytes"], run["warps"], run["steps"], run["elements_a_request_row"]
    R = 32 // K
    rows = 8192
    return ["--kernel-file", STEP_KERNEL, "--define", "SL_S=%d" % S, "--define", "SL_K=%d" % K,
            "--define", "SL_NEXT=%d" % bool(run.get("rest_from_next")),
            *(["--define", "SL_STAGED=1"] if run.get("staged") else []),
            "--dtype", {4: "f32", 8: "f64"}[e], "--matrix", "%dx%d" % (rows, (256 << 20) // e // rows),
            "--block", "%dx%d" % (R, W * K), "--tile", "%dx%d" % (S * R, W * K),
            # 8 warps at 1 block an SM: any count from 255 (the most a thread has) gives 1.
            "--regs", str(min(255, 65536 // (32 * W * run["blocks_per_sm"]))), "--format", "json"]


def memsim_args(run):
    """memsim's command line for a memsim-held-open run: at once, sequential, or rows apart (a step a line or not),
    whose block covers Q times the rows by one line."""
    e = run["element_bytes"]
    rows = 4096 if run["row_bytes"] == 65536 else 8192
    cols = (256 << 20) // e // rows
    R = run.get("rows_per_request", 32)
    P, Q = run["warps_a_line"], run["lines_a_row"]
    apart = ["--define", "HO_APART=1", "--define", "HO_STEPS=%d" % int("a step a line" in run["name"])] \
        if run.get("rows_apart") else []
    tile = "%dx%d" % (Q * R * (8 // P), 128 // e) if apart else "%dx%d" % (R * (8 // P), Q * 128 // e)
    return ["--kernel-file", KERNEL, "--define", "HO_P=%d" % P, "--define", "HO_Q=%d" % Q, "--define",
            "HO_R=%d" % R, "--define", "HO_SEQUENTIAL=%d" % int(run["sequential"]), *apart,
            "--dtype", {4: "f32", 8: "f64"}[e], "--matrix", "%dx%d" % (rows, cols), "--block", "32x8",
            "--tile", tile, "--regs", str(REGS_FOR[run["blocks_per_sm"]]), "--format", "json"]


def predict(memsim, profile_path, run):
    args = step_lines_args(run) if "warps" in run else memsim_args(run)
    out = subprocess.run([memsim, *args, "--device", profile_path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("memsim failed on %s: %s" % (run["name"], out.stderr.strip()))
    prediction = json.loads(out.stdout)["prediction"]
    if prediction["occupancy"]["blocks_per_sm"] != run["blocks_per_sm"]:
        raise SystemExit("memsim puts %d blocks an SM where %s ran %d" % (
            prediction["occupancy"]["blocks_per_sm"], run["name"], run["blocks_per_sm"]))
    return prediction


def combined(terms, overlap_p, partial):
    """The time model/cost.cpp gives for these terms (µs) with the partial-store term set to `partial`."""
    residency = terms["latency (too few bytes in flight)"] + terms["block scheduling (per-block overhead)"]
    parts = [terms["DRAM bandwidth"], terms["L2 sector traffic"], terms["crossbar into L2 (stores)"],
             terms["L1/shared wavefronts"], terms["instruction issue"], terms.get("L1 lines for loads in flight", 0.0),
             max(residency, partial)]
    body = sum(x ** overlap_p for x in parts) ** (1 / overlap_p)
    return max(body, terms["block launch rate (too many blocks)"]) + terms["launch overhead"]


def golden(f, lo, hi, steps=40):
    """The x in [lo, hi] that minimises f, by golden-section search."""
    for _ in range(steps):
        x1, x2 = hi - (hi - lo) * 0.618, lo + (hi - lo) * 0.618
        if f(x1) < f(x2):
            hi = x2
        else:
            lo = x1
    return (lo + hi) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("memsim")
    ap.add_argument("profile")
    ap.add_argument("runs")
    ap.add_argument("--step-lines", help="memsim-step-lines' runs on the same GPU (JSON)")
    ap.add_argument("--report")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    base = json.load(open(a.profile))
    doc = json.load(open(a.runs))
    # A block's rows must fill memsim's 32-wide block rows (the tile is a multiple of the block): R x 8/P of 32 or
    # more (16 rows a request from 8 warps a line, or 8 from 4, are left out: they read back little anyway).
    runs = [r for r in doc["runs"] if r["element_bytes"] in (4, 8)
            and r.get("rows_per_request", 32) * (8 // r["warps_a_line"]) % 32 == 0]
    steps_doc = json.load(open(a.step_lines)) if a.step_lines else None
    if steps_doc:
        if steps_doc["device"] != doc["device"]:
            raise SystemExit("fit_held_open_time.py: the step-lines runs are from an %s, the held-open runs from an %s"
                             % (steps_doc["device"], doc["device"]))
        runs += steps_doc["runs"]
    tmp = tempfile.mkdtemp(prefix="memsim-fit-")
    path = os.path.join(tmp, os.path.basename(a.profile))
    cost0 = base["cost"]
    ps0 = list(cost0["read_back"]["ps_per_byte"][:3])
    over0 = cost0.get("sector_from_warps_ps", 0.0)
    one0 = cost0.get("sector_from_warps_one_round_ps", over0)
    p = cost0["overlap_p"]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    first = list(pool.map(lambda r: predict(a.memsim, a.profile, r), runs))
    chosen = [(r, q) for r, q in zip(runs, first)
              if q["terms_us"]["L2 partial-sector stores"] > 0 and q["lines_open_at_once"] <= 300000]

    def lane_of(r):
        """The class whose read-back cost the run's bytes take (core/kernel_counts.hpp, partial_store_class):
        pieces of 16 bytes (K elements a sector) 2, whatever the lanes; else 4-byte elements 0, 8-byte 1."""
        K = r["elements_a_request_row"] if "warps" in r else 32 // r.get("rows_per_request", 32)
        if K * r["element_bytes"] > 8:
            return 2
        return 0 if r["element_bytes"] == 4 else 1

    def times(one, over, ps):
        out = []
        for r, q in chosen:
            lane = lane_of(r)
            in_one = q["sectors_from_warps_in_one_round"]
            partial = (q["terms_us"]["L2 partial-sector stores"] + (q.get("read_back_us") or 0.0) * (ps[lane] / ps0[lane] - 1)
                       + ((q["sectors_from_warps"] - in_one) * (over - over0) + in_one * (one - one0)) * 1e-6)
            out.append(combined(q["terms_us"], p, partial))
        return out

    worst = max(abs(t / q["time_us"] - 1) for t, (_, q) in zip(times(one0, over0, ps0), chosen))
    if worst > 1e-6:
        raise SystemExit("fit_held_open_time.py: the terms combined here differ from memsim's time by %.2g: "
                         "model/cost.cpp combines them otherwise now" % worst)

    def loss(x):  # x: [one-round sector cost, over-rounds sector cost, ps_per_byte[0], [1], [2]]
        return sum(math.log(t / r["median_us"]) ** 2 for t, (r, _) in zip(times(x[0], x[1], x[2:5]), chosen))

    def fit(x, groups):
        """Golden-section search on each group of x's coordinates in turn (a group's coordinates move together:
        (0, 1) is one sector cost for both) until none moves by 0.001."""
        x = list(x)
        bounds = [(0.0, 60.0), (0.0, 60.0), (0.0, 4 * max(ps0[0], 1.0)), (0.0, 4 * max(ps0[1], 1.0)),
                  (0.0, 4 * max(ps0[2], 1.0))]

        def at(group, v):
            return [v if i in group else xi for i, xi in enumerate(x)]

        for _ in range(50):
            before = list(x)
            for group in groups:
                lo, hi = bounds[group[0]]
                x = at(group, golden(lambda v: loss(at(group, v)), lo, hi))
            if max(abs(u - v) for u, v in zip(x, before)) < 1e-3:
                break
        return x

    alone_x = fit([0.0, 0.0, *ps0], [(2,), (3,), (4,)])
    tied_x = fit([over0, over0, *ps0], [(0, 1), (2,), (3,), (4,)])  # the model before they were told apart
    # Without a run whose lines are written whole in one round (memsim-held-open alone), that cost has no data:
    # it stays tied to the other's (the profile leaves it out).
    apart = any(q["sectors_from_warps_in_one_round"] > 0 for _, q in chosen)
    fitted = fit(tied_x, [(0,), (1,), (2,), (3,), (4,)]) if apart else tied_x
    one, over = round(fitted[0], 2), round(fitted[1], 2)
    ps = [round(v, 3) for v in fitted[2:5]]
    rms = lambda xs: math.sqrt(sum(x * x for x in xs) / len(xs))
    logs = lambda ts: [math.log(t / r["median_us"]) for t, (r, _) in zip(ts, chosen)]
    before = logs(times(one0, over0, ps0))
    alone = logs(times(0.0, 0.0, alone_x[2:5]))
    tied = logs(times(tied_x[0], tied_x[1], tied_x[2:5]))
    after = logs(times(one, over, ps))
    # memsim itself at the fitted costs: the check that the combination above is the model's.
    prof = json.loads(json.dumps(base))
    prof["cost"]["read_back"]["ps_per_byte"][:3] = ps
    prof["cost"]["sector_from_warps_ps"] = over
    prof["cost"]["sector_from_warps_one_round_ps"] = one
    json.dump(prof, open(path, "w"))
    final = list(pool.map(lambda rq: predict(a.memsim, path, rq[0]), chosen))
    gap = max(abs(q["time_us"] / t - 1) for q, t in zip(final, times(one, over, ps)))
    if gap > 1e-6:
        raise SystemExit("fit_held_open_time.py: memsim at the fitted costs differs from the fit's time by %.2g" % gap)
    pct = lambda x: 100 * (math.exp(x) - 1)
    mape = lambda xs: sum(abs(pct(x)) for x in xs) / len(xs)
    summary = lambda xs: "rms log error %.3f, MAPE %.1f%%, worst %+.1f%%" % (rms(xs), mape(xs), pct(max(xs, key=abs)))
    held = [r for r, _ in chosen if "warps" not in r]
    out = ["# lab/calibration/fit_held_open_time.py %s %s%s" % (
               os.path.relpath(a.profile, ROOT), os.path.relpath(a.runs, ROOT),
               " --step-lines " + os.path.relpath(a.step_lines, ROOT) if a.step_lines else ""),
           "# runs: memsim-held-open on an %s, %s" % (doc["device"], doc["date"])]
    if steps_doc:
        out.append("# and memsim-step-lines on an %s, %s" % (steps_doc["device"], steps_doc["date"]))
    out += ["%d runs with partial pieces, lines open at most 300,000 at once: %d memsim-held-open (%d of 4-byte "
            "elements, %d of 8-byte), %d memsim-step-lines" % (
                len(chosen), len(held), sum(r["element_bytes"] == 4 for r in held),
                sum(r["element_bytes"] == 8 for r in held), len(chosen) - len(held)),
            "as the profile stood: ps_per_byte %.3f / %.3f / %.3f, sector_from_warps_ps %.2f, one round %.2f: %s"
            % (*ps0, over0, one0, summary(before)),
            "read-back costs alone (no sector cost): ps_per_byte %.3f / %.3f / %.3f: %s"
            % (*alone_x[2:5], summary(alone)),
            "one sector cost for both: ps_per_byte %.3f / %.3f / %.3f, sector cost %.2f: %s"
            % (*tied_x[2:5], tied_x[0], summary(tied)),
            ("fitted: ps_per_byte %.3f / %.3f / %.3f, sector_from_warps_ps %.2f (over rounds), "
             "sector_from_warps_one_round_ps %.2f: %s" % (*ps, over, one, summary(after))) if apart else
            ("fitted: the same (no run has sectors of lines written whole in one round: "
             "sector_from_warps_one_round_ps left out, priced as sector_from_warps_ps)")]
    groups = {}
    for x0, x1, x2, x3, (r, q) in zip(before, alone, tied, after, chosen):
        bench = "step-lines" if "warps" in r else "held-open"
        sfw = q["sectors_from_warps"]
        rounds = ("whole in a round" if sfw and q["sectors_from_warps_in_one_round"] == sfw else
                  "held open" if not q["sectors_from_warps_in_one_round"] else "mixed")
        groups.setdefault((bench, r["element_bytes"], rounds), []).append((x0, x1, x2, x3))
    out.append("mean error by benchmark, element and the sectors' lines (as the profile stood / "
               "read-back costs alone / one sector cost / fitted):")
    for (bench, e, rounds), xs in sorted(groups.items()):
        out.append("  %-10s %d-byte elements, %-17s %3d runs  %+6.1f%% / %+6.1f%% / %+6.1f%% / %+6.1f%%" % (
            bench, e, rounds + ":", len(xs), *(pct(sum(x[i] for x in xs) / len(xs)) for i in range(4))))
    # memsim-step-lines apart by piece (lanes that write it x element), steps and warps an SM, fitted costs: a
    # piece from 4-byte lanes that no single cost prices at every occupancy shows here, not in the means above.
    pieces = {}
    for x3, (r, q) in zip(after, chosen):
        if "warps" in r:
            k = r["elements_a_request_row"]
            pieces.setdefault((k * r["element_bytes"], k, r["element_bytes"], r["steps"] > 1,
                               r["warps"] * r["blocks_per_sm"]), []).append(x3)
    out.append("memsim-step-lines' mean error by piece, steps and warps an SM (fitted):")
    for (size, lanes, e, many, warps), xs in sorted(pieces.items()):
        out.append("  %2d-byte pieces from %d lanes of %d bytes, %-9s %2d warps an SM: %2d runs  %+6.1f%%" % (
            size, lanes, e, "S > 1," if many else "S = 1,", warps, len(xs), pct(sum(xs) / len(xs))))
    for (r, _), q in zip(chosen, final):
        out.append("  %-52s bps %d  measured %8.1f  predicted %8.1f  %+6.1f%%" % (
            r["name"], r["blocks_per_sm"], r["median_us"], q["time_us"], 100 * (q["time_us"] / r["median_us"] - 1)))
    text = "\n".join(out) + "\n"
    if a.report:
        open(a.report, "w").write(text)
    print(text, end="")
    if a.write:
        prof = json.load(open(a.profile))
        prof["cost"]["read_back"]["ps_per_byte"][:3] = ps
        prof["cost"]["sector_from_warps_ps"] = over
        if apart:
            prof["cost"]["sector_from_warps_one_round_ps"] = one
        else:
            prof["cost"].pop("sector_from_warps_one_round_ps", None)
        with open(a.profile, "w") as f:
            json.dump(prof, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
