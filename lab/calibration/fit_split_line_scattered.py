#!/usr/bin/env python3
"""Fits cost.split_line_scattered_ps, what a line holding a split sector adds where the resident blocks meet
their stores out of order, on memsim-split-lines' runs alone (lab/studies/split_lines: both lane widths, the
linear and the scattered layout of every pattern at D = 1, 16 and 256):

  fit_split_line_scattered.py RESULTS_DIR --profile PROFILE.json [--memsim BIN] [--check]

Each scattered run is set beside its linear twin (same lanes, pattern and D): the twin's error says how far memsim
is off on what the two layouts share, so the scattered run's target is its measured time times the twin's
predicted / measured, and the fit asks the constant for what the scattered layout adds beyond that. memsim replays
every run (split_lines_kernel.hpp, the warp instructions from Nsight Compute, as terms.py) with PROFILE's
constants and the one fitted: one-dimensional, a golden-section search of the rms log error over 0-400 ps. The
linear runs do not move (their stores are in order). Prints the fit, its rms against the constant at 0, each
scattered run's error both ways; --check exits 1 unless PROFILE's own constant is the fit's (within 0.5 ps).

Standard library only. Exit 2 with one line on stderr for a wrong argument, file or memsim failure.
"""
import argparse
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
sys.path.insert(0, os.path.join(ROOT, "lab", "studies", "split_lines"))
import memsim_run  # noqa: E402
import terms  # noqa: E402  (the study's own replay of each run)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--memsim", default=os.path.join(ROOT, "build", "app", "memsim"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    doc = memsim_run.read_json(os.path.join(a.results, "split_lines.json"), "a memsim-split-lines run")
    ncu = terms.ncu_rows(os.path.join(a.results, "split_lines.ncu.csv"))
    runs = memsim_run.field(doc, ["runs"], "split_lines.json")
    if len(ncu) != len(runs):
        raise memsim_run.Error("%d runs but %d Nsight Compute launches" % (len(runs), len(ncu)))
    profile = memsim_run.read_json(a.profile, "a device profile")
    shipped = profile.get("cost", {}).get("split_line_scattered_ps", 0.0)
    masks = terms.header_masks()
    key = lambda r: (terms.lane_bytes(r), r["pattern"], r["distance"])
    linear = {key(r): (r, n) for r, n in zip(runs, ncu) if r["layout"] == "linear"}
    pairs = [((r, n), linear[key(r)]) for r, n in zip(runs, ncu)
             if r["layout"] == "scattered" and key(r) in linear]
    if not pairs:
        raise memsim_run.Error("%s: no scattered run with a linear twin" % a.results)

    def predict(item, device):
        r, n = item
        lanes = terms.lane_bytes(r)
        matrix, dtype = terms.LANES[lanes][3:]
        defines = ["--define", "SL_PATTERN=%d" % terms.pattern_index(r, masks),
                   "--define", "SL_SCATTERED=%d" % (r["layout"] == "scattered"),
                   "--define", "SL_DISTANCE=%d" % r["distance"]]
        if lanes == 2:
            defines += ["--define", "SL_LANE_BYTES=2"]
        return memsim_run.memsim_report(a.memsim, ["--kernel-file", terms.KERNEL] + defines + [
            "--matrix", matrix, "--dtype", dtype, "--block", "256x1", "--tile", "2048x1", "--device", device,
            "--instructions", "%d" % n["smsp__inst_executed.sum"], "--format", "json"])["prediction"]

    scratch = tempfile.TemporaryDirectory(prefix="fit_split_line_")  # each constant's profile; removed at exit
    work = scratch.name

    def with_constant(ps):
        p = json.loads(json.dumps(profile))
        p["cost"]["split_line_scattered_ps"] = ps
        p.get("calibration", {}).pop("constants_hash", None)
        path = os.path.join(work, "profile_%.6f.json" % ps)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(p, f)
        return path

    base = with_constant(0.0)
    twins = memsim_run.parallel_map(lambda pair: predict(pair[1], base)["time_us"], pairs, os.cpu_count() or 2)
    targets = [s[0]["median_us"] * t / l[0]["median_us"] for (s, l), t in zip(pairs, twins)]
    cache = {}

    def times(ps):
        if ps not in cache:
            device = with_constant(ps)
            cache[ps] = memsim_run.parallel_map(lambda pair: predict(pair[0], device)["time_us"], pairs,
                                                os.cpu_count() or 2)
        return cache[ps]

    def rms(ps):
        return math.sqrt(sum(math.log(t / g) ** 2 for t, g in zip(times(ps), targets)) / len(targets))

    lo, hi = 0.0, 400.0
    g = (math.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(14):  # the bracket to 0.5 ps
        if rms(c) < rms(d):
            hi, d = d, c
            c = hi - g * (hi - lo)
        else:
            lo, c = c, d
            d = lo + g * (hi - lo)
    best = round((lo + hi) / 2, 2)
    print("%s (%s): %d scattered runs with a linear twin; profile %s" % (doc["device"], doc["date"], len(pairs),
                                                                      a.profile))
    print("split_line_scattered_ps = %.2f ps: rms log error against the twin-scaled target %.3f (at 0: %.3f)"
          % (best, rms(best), rms(0.0)))
    print("| lanes | pattern | D | measured µs | target µs | at 0 | fitted |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for ((s, _), _), g0, g1, tg in zip(pairs, times(0.0), times(best), targets):
        print("| %d B | %s | %d | %.1f | %.1f | %+.1f%% | %+.1f%% |" % (terms.lane_bytes(s), s["pattern"], s["distance"],
                                                                   s["median_us"], tg, 100 * (g0 / tg - 1),
                                                                   100 * (g1 / tg - 1)))
    if a.check and abs(shipped - best) > 0.5:
        print("fit_split_line_scattered.py: %s has split_line_scattered_ps %s, the fit %.2f" % (a.profile, shipped, best),
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    memsim_run.main_guard(main)
