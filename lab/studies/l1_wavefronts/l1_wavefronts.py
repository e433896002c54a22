#!/usr/bin/env python3
"""The replay's L1 wavefronts of global requests against Nsight Compute's, configuration by configuration.

Reads a CSV of lab/studies/l1_wavefronts/ncu_counters.sh holding l1tex__data_pipe_lsu_wavefronts.sum and
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (their difference: the global requests' wavefronts) for suite
launches, asks memsim for the same configurations, and prints a Markdown table: measured, memsim's count
(sim/global_sectors.hpp: per group of 128 / lane-width lanes, the most words one L1 bank delivers) and the
rule memsim used before (one per sector when a request is scattered, else one per 128 bytes).

    lab/studies/l1_wavefronts/l1_wavefronts.py MEMSIM_BINARY MATRIX NCU.csv [RUN] > OUT.md
MATRIX: the sweep's (e.g. 8192x8192; each launch's grid in the CSV is checked against memsim's at MATRIX);
RUN: where and when the CSV was measured, printed under the title.
"""
import csv
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: memsim's report, reading files, the error rule)

USAGE = "lab/studies/l1_wavefronts/l1_wavefronts.py MEMSIM_BINARY MATRIX NCU.csv [RUN] > OUT.md"
COLUMNS = ("ID", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Value")

KERNELS = {"Coalesced": "coalesced", "Coarse": "coarse", "Copy": "copy", "CopyShared": "copy_shared",
           "Diagonal": "diagonal", "Fine": "fine", "Naive": "naive", "NaiveRead": "naive_read", "Padded": "padded",
           "Swizzle": "swizzle", "Reg4x4": "reg4x4", "Vec4": "vec4", "Vec4Shared": "vec4_shared"}
DTYPES = {"double": "f64", "float": "f32", "unsigned short": "f16"}
TOTAL = "l1tex__data_pipe_lsu_wavefronts.sum"
SHARED = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"


def launches(path):
    """{(id, kernel, dtype, block): {metric: value}} in launch order, and {key: grid "XxY"}."""
    what = "a CSV of lab/studies/l1_wavefronts/ncu_counters.sh (NCU.csv)"
    with memsim_run.open_text(path, what) as f:
        try:
            rows = [r for r in csv.reader(f) if r]
        except (csv.Error, UnicodeDecodeError):
            raise memsim_run.Error("%s is not a CSV file (expected %s)" % (path, what)) from None
    header = next((r for r in rows if r[0] == "ID"), None)
    if header is None:
        raise memsim_run.Error("%s has no Nsight Compute header (a row starting \"ID\"): expected %s" % (path, what))
    ix = {n: i for i, n in enumerate(header)}
    missing = [n for n in COLUMNS if n not in ix]
    if missing:
        raise memsim_run.Error("%s has no column %s: expected ncu --csv's details page, as "
                               "lab/studies/l1_wavefronts/ncu_counters.sh writes it" % (path, ", ".join(missing)))
    out = {}
    grids = {}
    for r in rows:
        if len(r) != len(header) or r[0] == "ID":
            continue
        where = "%s: launch %s" % (path, r[0])
        m = re.search(r"<(\w+), ([\w ]+)>", r[ix["Kernel Name"]])
        b = re.findall(r"\d+", r[ix["Block Size"]])
        g = re.findall(r"\d+", r[ix["Grid Size"]])
        if not m or m.group(1) not in KERNELS or m.group(2) not in DTYPES:
            raise memsim_run.Error("%s is no suite kernel (%s): expected suite_kernel<KERNEL, TYPE> launches of "
                                   "memsim-validate" % (where, r[ix["Kernel Name"]][:80]))
        if not r[0].isdigit() or len(b) < 2 or len(g) < 2:
            raise memsim_run.Error("%s: a row without a launch ID, block or grid size (ID %r, block %r, grid %r)"
                                   % (path, r[0], r[ix["Block Size"]], r[ix["Grid Size"]]))
        try:
            value = float(r[ix["Metric Value"]].replace(",", ""))
        except ValueError:
            raise memsim_run.Error("%s: %s is no number (%r)" % (where, r[ix["Metric Name"]],
                                                                 r[ix["Metric Value"]][:40])) from None
        key = (int(r[0]), KERNELS[m.group(1)], DTYPES[m.group(2)], "%sx%s" % (b[0], b[1]))
        out.setdefault(key, {})[r[ix["Metric Name"]]] = value
        grids[key] = "%sx%s" % (g[0], g[1])
    if not out:
        raise memsim_run.Error("%s has no launches (no row of its header's columns under it)" % path)
    for key, metrics in out.items():
        lacking = [n for n in (TOTAL, SHARED) if n not in metrics]
        if lacking:
            raise memsim_run.Error("%s: launch %d (%s %s %s) has no %s: measure %s,%s with "
                                   "lab/studies/l1_wavefronts/ncu_counters.sh"
                                   % (path, key[0], key[1], key[2], key[3], " or ".join(lacking), TOTAL, SHARED))
    return out, grids


def memsim_sites(binary, matrix, key, grid):
    """memsim's sites for the launch key, after checking that memsim's grid for it at matrix is grid, the
    launch's own (a MATRIX other than the CSV's sweep would compare other launches)."""
    _, kernel, dtype, block = key
    report = memsim_run.memsim_json(binary, kernel, dtype, block, matrix)
    where = "memsim's report for %s %s %s" % (kernel, dtype, block)
    g = memsim_run.field(report, ("config", "grid"), where)
    ours = "%sx%s" % (memsim_run.field(g, ("x",), where + " config.grid"),
                      memsim_run.field(g, ("y",), where + " config.grid"))
    if ours != grid:
        raise memsim_run.Error("MATRIX %s does not match the CSV: launch %d (%s %s block %s) ran a %s grid, memsim "
                               "gives %s at %s (give the matrix the CSV was measured at)"
                               % (matrix, key[0], kernel, dtype, block, grid, ours, matrix))
    sites = memsim_run.field(report, ("sites",), where)
    if not isinstance(sites, list):
        raise memsim_run.Error("%s has no sites array" % where)
    for i in range(len(sites)):
        if memsim_run.field(sites, (i, "space"), where + " sites") == "global":
            for k in ("l1_wavefronts", "sectors", "ideal_sectors", "requests"):
                memsim_run.field(sites, (i, k), where + " sites")
    return sites


def old_rule(s):
    return s["sectors"] if s["sectors"] > s["ideal_sectors"] else max(s["requests"], s["sectors"] / 4)


def main():
    args = memsim_run.check_args(sys.argv, __doc__, USAGE, 3, 4, free=(1, 3))
    binary, matrix, path = args[:3]
    memsim_run.check_binary(binary)
    runs, grids = launches(path)
    keys = sorted(runs)
    # The first launch alone first: a MATRIX memsim refuses, or other than the CSV's, fails at once.
    sites = [memsim_sites(binary, matrix, keys[0], grids[keys[0]])]
    sites += memsim_run.parallel_map(lambda k: memsim_sites(binary, matrix, k, grids[k]), keys[1:])
    rows = []
    for k, ss in zip(keys, sites):
        g = [s for s in ss if s["space"] == "global"]
        measured = runs[k][TOTAL] - runs[k][SHARED]
        rows.append((k, measured, sum(s["l1_wavefronts"] for s in g), sum(old_rule(s) for s in g)))
        if not rows[-1][2] or not rows[-1][3]:
            raise memsim_run.Error("memsim counts no L1 wavefronts of global requests for %s %s block %s"
                                   % (k[1], k[2], k[3]))
    now = [m / n for _, m, n, _ in rows]
    old = [m / o for _, m, _, o in rows]
    print("## L1 wavefronts of global requests: memsim against Nsight Compute\n")
    if len(args) == 4:
        print("Run: %s.\n" % args[3])
    print("Measured: `%s` - `%s` (the global requests' share), one launch of each configuration at %s "
          "(`lab/studies/l1_wavefronts/ncu_counters.sh`). memsim: `l1_wavefronts` of the global sites. Before: one per "
          "sector when a request is scattered, else one per 128 bytes.\n" % (TOTAL, SHARED, matrix))
    print("| | configurations | measured / memsim: min | median | max |")
    print("|---|---|---|---|---|")
    print("| memsim (lines per lane group) | %d | %.3f | %.3f | %.3f |" % (len(rows), min(now), statistics.median(now), max(now)))
    print("| the rule before | %d | %.3f | %.3f | %.3f |" % (len(rows), min(old), statistics.median(old), max(old)))
    print("\n| kernel | dtype | block | measured | memsim | measured / memsim | before | measured / before |")
    print("|---|---|---|---|---|---|---|---|")
    for (k, m, n, o) in rows:
        print("| %s | %s | %s | %.0f | %.0f | %.3f | %.0f | %.3f |" % (k[1], k[2], k[3], m, n, m / n, o, m / o))


if __name__ == "__main__":
    memsim_run.main_guard(main)
