#!/usr/bin/env python3
"""The replay's L1 wavefronts of global requests against Nsight Compute's, configuration by configuration.

Reads a CSV of validate/ncu_counters.sh holding l1tex__data_pipe_lsu_wavefronts.sum and
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (their difference: the global requests' wavefronts) for suite
launches, asks memsim for the same configurations, and prints a Markdown table: measured, memsim's count
(sim/global_sectors.hpp: one wavefront per distinct line each group of 128 / lane-width lanes touches) and the
rule memsim used before (one per sector when a request is scattered, else one per 128 bytes).

    validate/l1_wavefronts.py MEMSIM_BINARY MATRIX NCU.csv [RUN] > OUT.md
MATRIX: the sweep's (e.g. 8192x8192); RUN: where and when the CSV was measured, printed under the title.
"""
import csv
import re
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

import memsim_run

KERNELS = {"Coalesced": "coalesced", "Coarse": "coarse", "Copy": "copy", "CopyShared": "copy_shared",
           "Diagonal": "diagonal", "Fine": "fine", "Naive": "naive", "NaiveRead": "naive_read", "Padded": "padded",
           "Swizzle": "swizzle", "Reg4x4": "reg4x4", "Vec4": "vec4", "Vec4Shared": "vec4_shared"}
DTYPES = {"double": "f64", "float": "f32", "unsigned short": "f16"}
TOTAL = "l1tex__data_pipe_lsu_wavefronts.sum"
SHARED = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"


def launches(path):
    """{(id, kernel, dtype, block): {metric: value}} in launch order."""
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r]
    header = next(r for r in rows if r[0] == "ID")
    ix = {n: i for i, n in enumerate(header)}
    out = {}
    for r in rows:
        if len(r) != len(header) or r[0] == "ID":
            continue
        m = re.search(r"<(\w+), ([\w ]+)>", r[ix["Kernel Name"]])
        b = re.findall(r"\d+", r[ix["Block Size"]])
        key = (int(r[0]), KERNELS[m.group(1)], DTYPES[m.group(2)], "%sx%s" % (b[0], b[1]))
        out.setdefault(key, {})[r[ix["Metric Name"]]] = float(r[ix["Metric Value"]].replace(",", ""))
    return out


def memsim_sites(binary, matrix, key):
    _, kernel, dtype, block = key
    return memsim_run.memsim_json(binary, kernel, dtype, block, matrix)["sites"]


def old_rule(s):
    return s["sectors"] if s["sectors"] > s["ideal_sectors"] else max(s["requests"], s["sectors"] / 4)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    binary, matrix, path = sys.argv[1:4]
    runs = launches(path)
    keys = sorted(runs)
    with ThreadPoolExecutor(max_workers=2) as pool:
        sites = list(pool.map(lambda k: memsim_sites(binary, matrix, k), keys))
    rows = []
    for k, ss in zip(keys, sites):
        g = [s for s in ss if s["space"] == "global"]
        measured = runs[k][TOTAL] - runs[k][SHARED]
        rows.append((k, measured, sum(s["l1_wavefronts"] for s in g), sum(old_rule(s) for s in g)))
    now = [m / n for _, m, n, _ in rows]
    old = [m / o for _, m, _, o in rows]
    print("## L1 wavefronts of global requests: memsim against Nsight Compute\n")
    if len(sys.argv) == 5:
        print("Run: %s.\n" % sys.argv[4])
    print("Measured: `%s` - `%s` (the global requests' share), one launch of each configuration at %s "
          "(`validate/ncu_counters.sh`). memsim: `l1_wavefronts` of the global sites. Before: one per sector "
          "when a request is scattered, else one per 128 bytes.\n" % (TOTAL, SHARED, matrix))
    print("| | configurations | measured / memsim: min | median | max |")
    print("|---|---|---|---|---|")
    print("| memsim (lines per lane group) | %d | %.3f | %.3f | %.3f |" % (len(rows), min(now), statistics.median(now), max(now)))
    print("| the rule before | %d | %.3f | %.3f | %.3f |" % (len(rows), min(old), statistics.median(old), max(old)))
    print("\n| kernel | dtype | block | measured | memsim | measured / memsim | before | measured / before |")
    print("|---|---|---|---|---|---|---|---|")
    for (k, m, n, o) in rows:
        print("| %s | %s | %s | %.0f | %.0f | %.3f | %.0f | %.3f |" % (k[1], k[2], k[3], m, n, m / n, o, m / o))


if __name__ == "__main__":
    main()
