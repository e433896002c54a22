#!/usr/bin/env python3
"""Fits the read-back of lines closed in their round by the steps and the warps an SM (cost.read_back.closed_steps,
model/cost.cpp) to memsim-step-lines' runs (lab/calibration/step_lines.cu) and Nsight Compute's DRAM counts of them.

A block that writes a fresh set of whole lines each of its S steps, each line closed in its step, reads back
(Nsight Compute: dram__bytes_read.sum beyond the input, over the output; every store is a partial piece)

    e = 1 - (1 - by lines)(1 - by steps),
    by steps = wf x per_log_steps x ln(1 + steps_scale x (S - 1)) x (1 - exp(-(X / stress)^stress_power)),
    X = warps resident an SM x (lines a warp writes in a step)^lines_power,
    by lines = the profile's lines-open law (from_lines, per_log_lines, its sector_warp_factors) at one step's lines

with wf 1 for sectors from 2 warps and sector_warp_factors at 4 and 8 (16-, 8- and 4-byte pieces). Why this shape
(docs/history/model_notebook.md, "Read-back by the steps"): on the H100 at 64 warps an SM the runs read back by
their steps whatever their lines (u32 K=4 and u64 K=2, 16-byte pieces, one holding half the lines of the other:
0.13 / 0.14 at 4 steps, 0.36 / 0.31 at 16), while at 16 and 32 warps the run with more lines reads back more: a
share of the sectors at risk that grows with the steps the warps drift apart over, of which the L2 evicts more the
harder the SM's warps press it. Least squares on e over the runs whose blocks write whole lines (not the half-line,
" next" or staged runs), by Nelder-Mead from several starts. Microbenchmark runs only: nothing of the suite's
kernels or of the held-out sweep is read.

    lab/calibration/fit_closed_steps.py RUNS.json RUNS.ncu.csv [RUNS2.json RUNS2.ncu.csv ...]
        --profile model/devices/h100.json [--check MEMSIM [--before]] [--expect-profile]

The first file's runs win where two files hold the same run (name and blocks an SM). --check runs memsim on every
run with the fitted constants in a copy of the profile and fails unless memsim's features (steps, warps an SM,
lines a warp, the lines-open share) and read-back equal the fit's.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_held_open import ncu_by_id  # noqa: E402  (ncu --csv, one row a metric)

NAMES = ("per_log_steps", "steps_scale", "stress", "stress_power", "lines_power", "sector_warp_factors")


def load(pairs, read_back, sms):
    runs, seen = [], set()
    for json_path, csv_path in pairs:
        doc = json.load(open(json_path))
        counters = ncu_by_id(csv_path)
        if len(counters) != len(doc["runs"]):
            raise SystemExit("%s has %d launches, %s %d runs" % (csv_path, len(counters), json_path, len(doc["runs"])))
        out = doc["output_bytes"]
        for i, r in enumerate(doc["runs"]):
            e, k, w = r["element_bytes"], r["elements_a_request_row"], r["warps"]
            if r.get("rest_from_next") or r.get("staged") or w * k * e < 128:
                continue  # part lines or a barrier between loads and stores: another question
            key = (r["name"], r["blocks_per_sm"])
            if key in seen:
                continue
            seen.add(key)
            runs.append({"name": r["name"], "file": os.path.basename(json_path), "run": r,
                         "steps": r["steps"], "warps_sm": w * r["blocks_per_sm"], "lines_warp": 32 // k,
                         "sector_warps": max(1, 32 // (k * e)), "blocks_sm": r["blocks_per_sm"], "sms": sms,
                         # whole lines, each from 128 / (K e) >= 8 warps: every line counts whole
                         "lines_round": (32 // k) * w * k * e / 128,
                         "e": (counters[i]["dram__bytes_read.sum"] - out) / out})
            runs[-1]["by_lines"] = by_lines(read_back, runs[-1])
    return runs


def factor(at4, at8, warps):
    """1 for sectors from 2 warps, at4 and at8 at 4 and 8, geometric between (model/cost.cpp's sector factors)."""
    if warps <= 2:
        return 1.0
    if warps >= 8:
        return at8
    return at4 ** math.log2(warps / 2.0) if warps <= 4 else at4 * (at8 / at4) ** math.log2(warps / 4.0)


def by_lines(read_back, r):
    """The lines-open law at one round's lines (the profile's from_lines, per_log_lines, sector_warp_factors)."""
    lines = r["lines_round"] * r["blocks_sm"] * r["sms"]
    if lines <= read_back["from_lines"]:
        return 0.0
    at4, at8 = read_back["sector_warp_factors"]
    return min(1.0, factor(at4, at8, r["sector_warps"]) * read_back["per_log_lines"] *
               math.log(lines / read_back["from_lines"]))


def e_of(x, r):
    per_log, scale, stress, power, lines_power = x[:5]
    pressure = r["warps_sm"] * r["lines_warp"] ** lines_power
    evicted = 1 - math.exp(-((pressure / stress) ** power))
    by_steps = min(1.0, factor(x[5], x[6], r["sector_warps"]) * per_log * math.log1p(scale * (r["steps"] - 1)) * evicted)
    return 1 - (1 - r["by_lines"]) * (1 - by_steps)


def sse(x, runs):
    return sum((e_of(x, r) - r["e"]) ** 2 for r in runs)


# The search works on logs of the positive constants (lines_power may be 0: it is searched as it is, at least 0).
def unpack(z):
    return [math.exp(z[0]), math.exp(z[1]), math.exp(z[2]), math.exp(z[3]), max(0.0, z[4]), math.exp(z[5]),
            math.exp(z[6])]


def nelder_mead(f, z0, step=0.3, iters=6000, tol=1e-12):
    n = len(z0)
    simplex = [list(z0)] + [[z0[j] + (step if j == i else 0) for j in range(n)] for i in range(n)]
    values = [f(z) for z in simplex]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: values[i])
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        if values[-1] - values[0] < tol:
            break
        centre = [sum(z[j] for z in simplex[:-1]) / n for j in range(n)]
        worst = simplex[-1]
        reflect = [c + (c - w) for c, w in zip(centre, worst)]
        fr = f(reflect)
        if fr < values[0]:
            expand = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = f(expand)
            simplex[-1], values[-1] = (expand, fe) if fe < fr else (reflect, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflect, fr
        else:
            contract = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = f(contract)
            if fc < values[-1]:
                simplex[-1], values[-1] = contract, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (z[j] - b) for j, b in enumerate(best)] for z in simplex[1:]]
                values = [values[0]] + [f(z) for z in simplex[1:]]
    i = min(range(n + 1), key=lambda i: values[i])
    return simplex[i], values[i]


def fit(runs):
    best = None
    for per_log, scale, stress, power, lines_power in ((0.3, 0.1, 40, 2.5, 0.0), (0.4, 0.1, 100, 2.3, 0.4),
                                                        (0.8, 0.05, 500, 2.5, 1.0), (0.15, 1.0, 60, 2.0, 0.2)):
        z0 = [math.log(per_log), math.log(scale), math.log(stress), math.log(power), lines_power, 0.0, math.log(0.4)]
        for _ in range(3):  # restarts from the best point found
            z0, value = nelder_mead(lambda z: sse(unpack(z), runs), z0)
        if best is None or value < best[1]:
            best = (z0, value)
    return unpack(best[0])


def check(memsim, profile_path, x, runs, with_before):
    """memsim's features and read-back for every run, with x in a copy of the profile, against the fit's."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fit_held_open_time import step_lines_args
    prof = json.load(open(profile_path))
    without = json.loads(json.dumps(prof))
    without["cost"]["read_back"].pop("closed_steps", None)
    prof["cost"]["read_back"]["closed_steps"] = dict(zip(NAMES, x[:5] + [x[5:7]]))
    bad, old_sq = 0, 0.0
    with tempfile.TemporaryDirectory() as d:
        path, old_path = os.path.join(d, "with.json"), os.path.join(d, "without.json")
        json.dump(prof, open(path, "w"))
        json.dump(without, open(old_path, "w"))

        def predict(r, profile):
            out = subprocess.run([memsim, *step_lines_args(r["run"]), "--device", profile], capture_output=True,
                                 text=True)
            if out.returncode != 0:
                raise SystemExit("memsim failed on %s: %s" % (r["name"], out.stderr.strip()))
            return json.loads(out.stdout)["prediction"]

        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            fitted = list(pool.map(lambda r: predict(r, path), runs))
            before = list(pool.map(lambda r: predict(r, old_path), runs)) if with_before else []
        old_sq = sum((b["read_back_fraction"] - r["e"]) ** 2 for b, r in zip(before, runs))
        for r, p in zip(runs, fitted):
            got = (p["closed_line_rounds"], p["closed_warps_per_sm"], p["closed_lines_a_warp"], p["closed_by_lines"],
                   p["read_back_fraction"])
            want = (r["steps"], r["warps_sm"], r["lines_warp"], r["by_lines"], e_of(x, r))
            if any(abs(a - b) > 1e-6 * max(1.0, abs(b)) for a, b in zip(got, want)):
                bad += 1
                print("memsim differs on %s at %d blocks an SM: %s against %s" % (
                    r["name"], r["run"]["blocks_per_sm"], got, want))
    if bad:
        raise SystemExit("%d runs differ" % bad)
    print("memsim agrees on all %d runs" % len(runs))
    if with_before:
        print("the profile's lines-open law with its steps open (without closed_steps): rms error of e %.4f" %
              math.sqrt(old_sq / len(runs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="RUNS.json RUNS.ncu.csv pairs")
    ap.add_argument("--check", metavar="MEMSIM")
    ap.add_argument("--before", action="store_true",
                    help="with --check, also the read-back's error without closed_steps (the law before)")
    ap.add_argument("--expect-profile", action="store_true",
                    help="fail unless the profile's closed_steps are the fitted constants (within 0.5%%)")
    ap.add_argument("--profile", required=True,
                    help="the profile whose lines-open law (from_lines, per_log_lines, sector_warp_factors) is held")
    a = ap.parse_args()
    if len(a.files) % 2:
        ap.error("give RUNS.json RUNS.ncu.csv in pairs")
    prof = json.load(open(a.profile))
    runs = load(list(zip(a.files[::2], a.files[1::2])), prof["cost"]["read_back"], prof["sm"]["count"])
    x = fit(runs)
    rms = math.sqrt(sse(x, runs) / len(runs))
    print("%d runs; rms error of e %.4f" % (len(runs), rms))
    print(json.dumps(dict(zip(NAMES, [round(v, 4) for v in x[:5]] + [[round(x[5], 4), round(x[6], 4)]]))))
    old = math.sqrt(sum((r["by_lines"] - r["e"]) ** 2 for r in runs) / len(runs))
    print("the lines-open law alone at one round's lines: rms error of e %.4f" % old)
    print("%-26s %3s %5s  %6s %6s %8s" % ("run", "bps", "warps", "e", "fit", "by lines"))
    for r in runs:
        print("%-26s %3d %5d  %6.3f %6.3f %8.3f" % (r["name"], r["run"]["blocks_per_sm"], r["warps_sm"], r["e"],
                                                    e_of(x, r), r["by_lines"]))
    if a.check:
        check(a.check, a.profile, x, runs, a.before)
    if a.expect_profile:
        have = prof["cost"]["read_back"].get("closed_steps")
        if have is None:
            raise SystemExit("%s has no cost.read_back.closed_steps" % a.profile)
        have = [have[n] for n in NAMES[:5]] + list(have["sector_warp_factors"])
        off = [(n, h, f) for n, h, f in zip(list(NAMES[:5]) + ["factor at 4", "factor at 8"], have, x)
               if abs(h - f) > 0.005 * max(abs(f), 1e-3)]
        if off:
            raise SystemExit("the profile's closed_steps differ from the fit: " +
                             ", ".join("%s %g against %g" % o for o in off))
        print("the profile's closed_steps are the fit's")


if __name__ == "__main__":
    main()
