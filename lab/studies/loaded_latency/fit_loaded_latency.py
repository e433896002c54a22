#!/usr/bin/env python3
"""Fits a loaded round trip on memsim-loaded-latency's runs (results/ll/ and results/walks/, each run's terms
from replay_terms.py): the latency term's round trip grows by S x f(rho) x g(n), rho the L2's busy share
((partial-sector stores + L2 sector traffic) over the time), n the lines a load request spreads over. For each
form the S that minimises the rms log error over the runs (the check points, naive's own held-out shapes,
left out), from a grid of 0 to 2 us. The combination is cost.cpp's (p-norm, max of residency and partial stores,
block launch floor, launch overhead), here in Python over the replayed terms; it reproduces memsim's times to
0.05% on the held-out sweep.

    fit_loaded_latency.py [--p 2.5877 --latency-us 0.508 --request-ns 51.56]   (h100's profile; prints the table)
"""
import argparse
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def combine(t, p, m=1.0):
    lat = t["latency (too few bytes in flight)"] * m
    res = lat + t["block scheduling (per-block overhead)"]
    terms = [t["DRAM bandwidth"], t["L2 sector traffic"], t["crossbar into L2 (stores)"], t["L1/shared wavefronts"],
             t["instruction issue"], max(res, t["L2 partial-sector stores"])]
    top = max(terms)
    body = top * sum((x / top) ** p for x in terms) ** (1 / p)
    return max(body, t["block launch rate (too many blocks)"]) + t["launch overhead"]


def lines_a_load(run):
    dtype, block = run["config"].split()[:2]
    bx = min(32, int(block.split("x")[0]))
    return (32 // bx) * math.ceil(bx * {"f16": 2, "f32": 4, "f64": 8}[dtype] / 128)


def harmonic(n):
    return sum(1 / i for i in range(1, n + 1))


RHO = {"rho/(1-rho)": lambda r: r / (1 - r), "rho": lambda r: r, "rho^4": lambda r: r ** 4}
LINES = {"1": lambda n: 1.0, "H(n)": harmonic, "H(n)-1": lambda n: harmonic(n) - 1, "n-1": lambda n: n - 1.0}


def predict(run, a, S, f, g, solved):
    t = run["terms_us"]
    t0 = combine(t, a.p)
    work = t["L2 partial-sector stores"] + t["L2 sector traffic"]
    if S == 0 or work == 0:
        return t0
    m, n = run["matrix"] if "matrix" in run else None, lines_a_load(run)
    w, h = map(int, run["config"].split()[6].split("x"))
    requests = run["l2_read_requests"]["requests"] / (w * h / 32) if run.get("l2_read_requests") else 1
    rt0 = a.latency_us + a.request_ns * 1e-3 * max(0, requests - 1)
    mult = lambda time: 1 + S * f(min(0.98, work / time)) * g(n) / rt0
    if not solved:  # rho from the time predicted without the wait
        return combine(t, a.p, mult(t0))
    lo, hi = t0, t0
    while combine(t, a.p, mult(hi)) > hi:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if combine(t, a.p, mult(mid)) > mid else (lo, mid)
    return hi


def stats(runs, a, S, f, g, solved):
    e = [math.log(predict(r, a, S, f, g, solved) / r["measured_us"]) for r in runs]
    return (math.sqrt(sum(x * x for x in e) / len(e)), 100 * sum(abs(math.exp(x) - 1) for x in e) / len(e),
            100 * (math.exp(max(e, key=abs)) - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="h100")
    ap.add_argument("--p", type=float, default=2.5877002892288044)
    ap.add_argument("--latency-us", type=float, default=0.508)
    ap.add_argument("--request-ns", type=float, default=51.557656498865555)
    a = ap.parse_args()
    runs = []
    for run in ("ll", "walks"):
        runs += json.load(open(os.path.join(HERE, "results", run, "terms_%s.json" % a.device)))
    fit = [r for r in runs if not r["check_point"]]
    checks = [r for r in runs if r["check_point"]]
    print("%d runs fitted, %d check points (naive's held-out shapes, run-time shaped here)\n" % (len(fit), len(checks)))
    print("%-12s %-7s %-6s %8s   %-27s %-27s" % ("f(rho)", "g(n)", "rho", "S (us)", "fit: rms log, MAPE, worst",
                                                 "check points: the same"))
    base = stats(fit, a, 0, None, None, True), stats(checks, a, 0, None, None, True)
    print("%-12s %-7s %-6s %8s   %.3f %5.1f%% %+6.1f%%        %.3f %5.1f%% %+6.1f%%" % (
        "(none)", "", "", "0", *base[0], *base[1]))
    grid = [i / 200 for i in range(0, 401)]
    for fn, f in RHO.items():
        for gn, g in LINES.items():
            for solved in (True, False):
                S = min(grid, key=lambda s: (round(stats(fit, a, s, f, g, solved)[0], 6), s))
                print("%-12s %-7s %-6s %8.3f   %.3f %5.1f%% %+6.1f%%        %.3f %5.1f%% %+6.1f%%" % (
                    fn, gn, "solved" if solved else "T0", S, *stats(fit, a, S, f, g, solved),
                    *stats(checks, a, S, f, g, solved)))


if __name__ == "__main__":
    main()
