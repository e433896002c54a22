#!/usr/bin/env python3
"""Fits cost.read_back.one_warp_factor to half_sector_store's DRAM reads under Nsight Compute (no suite run enters it).

A sector one warp writes in pieces and completes itself (half_sector_store, lab/calibration/bench_kernels.cuh:
each thread writes a sector as two 16-byte stores, one after the other) is read back by the L2 less than a sector
whose pieces come from two warps, at the same number of lines partly written at once. The factor is the share:
half_sector_store's measured read-back (DRAM bytes read over its 128 MiB input, less 1: the input is read once,
whatever more is the L2 reading partly written sectors back) against the model's e for sectors from 2 warps at
its open lines, per_log_lines x ln(L / from_lines) (the profile's read_back constants), least squares through the
origin over the runs with e > 0. L = the lines a block keeps partly written (32 at 32 rows a request, 16 at 16,
as half_sector_counts weighs them) x 8 blocks an SM x the SMs. At 8 rows a request each warp writes whole lines
(no line has pieces from two warps: L = 0, e = 0): printed, not fitted.

The measurement (docs/history/model_notebook.md, "Partly written lines", has the command): ncu --csv --print-units base with
dram__bytes_read.sum on memsim-microbench --stores-only. It replaced an estimate (0.47) made without DRAM reads,
through half_sector_store's L2 tag misses a line and the 16-byte strided stores' read-back per extra miss, which
came out 1.7 to 2 times the measured factor: removed, not kept as a check.

  lab/calibration/fit_one_warp_factor.py [NAME] [--csv STORES.ncu.csv] [--profile PROFILE.json]

NAME: h100 (default) or h200, choosing the committed measurement (validate/results/store_reads.ncu.csv, H100;
h200_store_reads.ncu.csv, H200) and the profile (model/devices/NAME.json) whose from_lines and per_log_lines
give e; --csv and --profile replace either. lab/calibration/results/NAME_one_warp_factor.txt is its output for each
GPU behind two comment lines (the command, the measurement's).
"""
import argparse
import csv
import json
import math

CSV = {"h100": "validate/results/store_reads.ncu.csv", "h200": "validate/results/h200_store_reads.ncu.csv"}
INPUT_BYTES = 4096 * 4096 * 8  # run_half_sector's default: 4096 rows of 1024 sectors (32 B), 128 MiB a side
BLOCKS_PER_SM = 8  # 256 threads a block, no shared memory, few registers: 2048 threads an SM
# Partly written lines a block (half_sector_counts: 64 lines, each by the share 4 / m of the 8 warps writing it,
# m = 32 / rows sectors a warp writes of a row): 32 rows a request 32, 16 rows 16, 8 rows none.
LINES_PER_BLOCK = {32: 32, 16: 16, 8: 0}


def rows(path):
    lines = [l for l in open(path) if not l.startswith("==")]
    table = list(csv.reader(lines))
    header, body = table[0], [r for r in table[1:] if r and r[0]]
    return [dict(zip(header, r)) for r in body]


def number(s):
    return float(s.replace(",", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", nargs="?", default="h100", help="h100 or h200 (default h100)")
    ap.add_argument("--csv", help="ncu --csv output with dram__bytes_read.sum of half_sector_store")
    ap.add_argument("--profile", help="profile whose read_back from_lines and per_log_lines give e")
    a = ap.parse_args()
    path = a.csv or CSV.get(a.name)
    if not path:
        ap.error("no committed measurement for %s: give --csv" % a.name)
    profile = a.profile or "model/devices/%s.json" % a.name
    prof = json.load(open(profile))
    rb = prof["cost"]["read_back"]
    from_lines, per_log, sms = rb["from_lines"], rb["per_log_lines"], prof["sm"]["count"]
    print("measurement %s; e from %s: per_log_lines %.4f, from_lines %d; %d SMs x %d blocks" %
          (path, profile, per_log, from_lines, sms, BLOCKS_PER_SM))
    reads = {}
    for r in rows(path):
        name = r["Kernel Name"]
        if name.startswith("void half_sector_store<") and r["Metric Name"] == "dram__bytes_read.sum":
            rows_per_request = int(name[len("void half_sector_store<"):].split(",")[0].split(">")[0])
            reads[rows_per_request] = number(r["Metric Value"])
    if not reads:
        raise SystemExit("%s: no dram__bytes_read.sum of half_sector_store" % path)
    print("\n| rows a request | L | read-back measured | e, 2 warps | factor x e |")
    print("|---|---|---|---|---|")
    runs = []
    for k in sorted(reads, reverse=True):
        back = reads[k] / INPUT_BYTES - 1
        L = LINES_PER_BLOCK[k] * BLOCKS_PER_SM * sms
        e = per_log * math.log(L / from_lines) if L > from_lines else 0.0
        runs.append((k, L, back, e))
    num = sum(e * back for _, _, back, e in runs)
    den = sum(e * e for _, _, _, e in runs)
    if den <= 0:
        raise SystemExit("no run with lines open past from_lines: nothing to fit")
    factor = num / den
    for k, L, back, e in runs:
        print("| %d%s | %d | %.4f | %.4f | %.4f |" % (k, "" if e > 0 else " (not fitted: e = 0)", L, back, e,
                                                       factor * e))
    print("\none_warp_factor: %.3f (least squares through the origin over %d runs)" %
          (factor, sum(1 for r in runs if r[3] > 0)))


if __name__ == "__main__":
    main()
