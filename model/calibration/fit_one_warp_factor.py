#!/usr/bin/env python3
"""Estimates cost.read_back.one_warp_factor from microbenchmark counters (no suite run enters it).

A sector one warp writes in pieces and completes itself (half_sector_store: each thread writes a sector as two
16-byte stores, one after the other) is read back by the L2 less than a sector whose pieces come from two warps
(the strided stores of 16-byte lanes), at the same number of lines partly written at once. The committed
half_sector_store counters have the L2's write requests that miss its tags but no DRAM reads, so the read-back
is estimated through the 16-byte lanes' strided stores at 1, 2, 4 and 8 blocks an SM, which have both: their
read-back (DRAM reads over the input, less 1) against their tag misses a line less 1, least squares through the
origin. The factor is then the half_sector_store runs' estimated read-back over the model's e for sectors from
2 warps (per_log_lines x ln(L / from_lines)), least squares through the origin over the runs with lines open.
A direct measurement replaces the estimate: the DRAM reads of half_sector_store under Nsight Compute
(docs/model.md, "Partly written lines", says how to run it).

  model/calibration/fit_one_warp_factor.py [PROFILE.json]   (default model/devices/h100.json: from_lines,
                                                             per_log_lines)
"""
import csv
import json
import math
import sys

CAPPED = "validate/results/capped_stores.ncu.csv"      # strided stores at capped occupancy: misses and DRAM reads
STORES = "validate/results/partial_stores_microbench.ncu.csv"  # the calibration's stores: misses a line
SMS = 132
# half_sector_store (validate/calibration/bench_kernels.cuh): lines written and partly written lines a block
# (from two or more warps, each weighted by their share of the block's 8 warps), 8 blocks an SM.
HALF = {"half_sector_store<32>": 32, "half_sector_store<16>": 16}
HALF_LINES = 1048576


def rows(path):
    lines = [l for l in open(path) if not l.startswith("==")]
    table = list(csv.reader(lines))
    header, body = table[0], [r for r in table[1:] if r and r[0]]
    return [dict(zip(header, r)) for r in body]


def number(s):
    return float(s.replace(",", ""))


def main():
    profile = sys.argv[1] if len(sys.argv) > 1 else "model/devices/h100.json"
    rb = json.load(open(profile))["cost"]["read_back"]
    from_lines, per_log = rb["from_lines"], rb["per_log_lines"]
    # 16-byte lanes at capped occupancy: a 4096^2 matrix of 16-byte elements, 2,097,152 lines of 128 B.
    xs, ys = [], []
    for r in rows(CAPPED):
        if "uint4" not in r["Kernel Name"]:
            continue
        out_bytes = 4096 * 4096 * 16
        lines = out_bytes / 128
        miss = number(r["lts__t_requests_srcunit_tex_op_write_lookup_miss.sum"]) / lines - 1
        back = number(r["dram__sectors_read.sum"]) * 32 / out_bytes - 1
        xs.append(miss)
        ys.append(back)
        print("16-byte lanes: tag misses a line - 1 = %.3f, read-back = %.3f" % (miss, back))
    slope = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
    print("read-back per extra tag miss a line: %.3f" % slope)
    num = den = 0.0
    for r in rows(STORES):
        name = next((n for n in HALF if r["Kernel Name"].startswith("void " + n)), None)
        if not name:
            continue
        miss = number(r["lts__t_requests_srcunit_tex_op_write_lookup_miss.sum"]) / HALF_LINES - 1
        est = slope * miss
        L = HALF[name] * 8 * SMS
        e2 = max(0.0, per_log * math.log(L / from_lines))
        print("%s: L = %d, tag misses a line - 1 = %.3f, read-back estimated %.3f, e for 2 warps %.3f" %
              (name, L, miss, est, e2))
        num += e2 * est
        den += e2 * e2
    print("one_warp_factor: %.2f" % (num / den))


if __name__ == "__main__":
    main()
