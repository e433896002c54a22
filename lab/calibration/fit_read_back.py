#!/usr/bin/env python3
"""Fits the h100 profile's read-back constants (model/cost.hpp) to memsim-partial-lines' runs:

    read-back fraction e = per_log_lines x ln(L / from_lines), at least 0 (L: lines partly written at once)
    read-back time = ps_per_byte x e x the bytes the partial-sector stores write

e is Nsight Compute's DRAM reads beyond the input over the output (dram__sectors_read.sum), fitted by least
squares on ln L over the runs in the suite kernels' regime: the suite's launch order (g = 1), unpadded rows,
loads from rows or none (the contiguous-load runs read back far less: they are reported, not fitted), the
L2 seeing the pieces unmerged (at least 60% of them as write requests), each line's pieces from several warps
(the one-warp runs read back nothing and count no line in memsim; the runs with each line from 2 or 4 of
the 8 warps are the check of memsim's weighting of such lines, G / 8 of a line: printed, not fitted) and some
read-back (e > 0.5%).
ps_per_byte from pairs of runs with the same stores, no loads and different read-backs: the suite's order
against whole rows first, at the same K and blocks per SM: their time differences over their read-back bytes'
differences, least squares through the origin. (Row loads against contiguous loads differ in read-back too,
but also in what the loads themselves cost: 60-76 µs with no read-back at all at 1 and 2 blocks per SM; those
pairs are printed as a check.) Microbenchmark runs only: nothing of the suite's kernels is read.

    lab/calibration/fit_read_back.py partial_lines.json partial_lines.ncu.csv [--wide WIDE.json WIDE.ncu.csv]
        [--warps WARPS.json WARPS.ncu.csv] [--pieces PIECES.json PIECES.ncu.csv]...

--warps: a run with each line's pieces from 2, 4 or 8 of the block's warps ("each line by G warps"), printed
against e at the L memsim counts for it (a line from G of 8 warps counts G / 8): the check of that weighting.
--pieces (one or more runs of memsim-partial-lines' "pieces" configurations: the same lines written in 4-, 8-
or 16-byte pieces, a sector's pieces from 8, 4 or 2 warps): the factors by which e grows with the warps
writing a sector, cost.read_back.sector_warp_factors at 4 and 8 warps: e of the 8- and 4-byte pieces against
e of the 16-byte pieces in the same lines at the same blocks per SM, least squares through the origin, over
the pairs whose 16-byte run reads back (e > 0.5%) and whose pieces the L2 sees unmerged (as above).
A second run with 8- and 16-byte lanes (memsim-partial-lines' "stores 8-byte lanes" and "16-byte lanes") is
reported per lane width, with from_lines held: the slope of e and the cost per byte it would give those lanes
(the profile charges them at costs fitted by memsim-calibrate on the strided stores instead: see
validate/results/l2_partial_lines.md).
"""
import csv
import json
import math
import sys

WORD = 4


def ncu_rows(path):
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    names = rows[head]
    for r in rows[head + 2:]:
        if r and r[0].isdigit():
            yield {n: r[i] for i, n in enumerate(names)}


def number(row, name):
    return float(row[name].replace(",", ""))


def load_runs(json_path, csv_path):
    doc = json.load(open(json_path))
    counters = list(ncu_rows(csv_path))
    runs = doc["runs"]
    if len(counters) != len(runs):
        sys.exit("%d runs but %d profiled launches" % (len(runs), len(counters)))
    out_bytes = doc["matrix_words"] ** 2 * WORD  # every run writes this many bytes, whatever its word
    for run, c in zip(runs, counters):
        reads = number(c, "dram__sectors_read.sum") * 32
        run["read_back"] = reads / out_bytes - (1 if run["loads"] else 0)
        run["requests"] = number(c, "lts__t_requests_srcunit_tex_op_write.sum")
    return runs, out_bytes


def launch_order_pairs(runs, keep):
    """Each run in the suite's order whose name `keep` accepts, with its ", blocks across" twin at the same
    blocks per SM: the same stores, different read-backs."""
    by_name = {(r["name"], r["blocks_per_sm"]): r for r in runs}
    return [(r, by_name[(r["name"] + ", blocks across", r["blocks_per_sm"])]) for r in runs
            if keep(r["name"]) and r["blocks_across"] == 1
            and (r["name"] + ", blocks across", r["blocks_per_sm"]) in by_name]


def differences(pairs, out_bytes):
    """Read-back bytes and time (ps) of the first run of each pair over the second."""
    return ([(a["read_back"] - b["read_back"]) * out_bytes for a, b in pairs],
            [(a["median_us"] - b["median_us"]) * 1e6 for a, b in pairs])


def through_origin(xs, ys):
    """Least squares of y = c x."""
    return sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)


def wide_lanes(path_json, path_csv, from_lines):
    """Per lane width of a run with wider lanes: e's slope through from_lines, and the cost per byte from
    the suite's order against whole rows first."""
    runs, out_bytes = load_runs(path_json, path_csv)
    print("\n| lanes | runs (e) | per_log_lines | pairs (time) | ps_per_byte |")
    print("|---|---|---|---|---|")
    for width in (8, 16):
        prefix = "stores %d-byte lanes K=" % width
        own = [r for r in runs if r["name"].startswith(prefix) and r["blocks_across"] == 1 and r["read_back"] > 0.005]
        xs = [math.log(r["lines_open_at_once"] / from_lines) for r in own]
        slope = through_origin(xs, [r["read_back"] for r in own])
        pairs = launch_order_pairs(runs, lambda name: name.startswith(prefix))
        cost = through_origin(*differences(pairs, out_bytes))
        print("| %d bytes | %d | %.4f | %d | %.2f |" % (width, len(own), slope, len(pairs), cost))


def memsim_lines(run):
    """L as memsim counts it (sim/partial_lines.hpp): a line by the share of the block's 8 warps writing it, none
    from one warp; runs that do not say how many warps write a line count every line."""
    g = run.get("warps_per_line", 0)
    if not g:
        return run["lines_open_at_once"]
    return run["lines_open_at_once"] * g / 8 if g > 1 else 0


def warp_share_check(path_json, path_csv, e):
    """The runs with each line's 8 pieces from G of the 8 warps (alone and after row loads): the read-back
    measured against e at memsim's L, G / 8 of a line each."""
    runs, _ = load_runs(path_json, path_csv)
    print("\n| run (lines from G warps) | blocks / SM | lines open | L as memsim counts | read-back measured | e(L) |")
    print("|---|---|---|---|---|---|")
    for r in runs:
        if r.get("warps_per_line", 0):
            lines = memsim_lines(r)
            print("| %s | %d | %d | %d | %.3f | %.3f |" % (r["name"], r["blocks_per_sm"], r["lines_open_at_once"], lines,
                                                          r["read_back"], e(lines)))


def sector_warp_factors(files):
    """e of 8- and 4-byte pieces over e of 16-byte pieces in the same lines (memsim-partial-lines' "pieces
    N B, LAYOUT" runs): the factors at 4 and 8 warps a sector."""
    runs = [r for path_json, path_csv in files for r in load_runs(path_json, path_csv)[0]]
    layout = lambda r: r["name"].split(", ", 1)[1]
    unmerged = lambda r: r["requests"] >= 0.6 * r["line_requests"]
    by = {(layout(r), r["blocks_per_sm"], r["piece_bytes"]): r for r in runs}
    print("\n| pieces | warps a sector | lines | blocks / SM | read-back | 16-byte pieces' | ratio |")
    print("|---|---|---|---|---|---|---|")
    factors = []
    for piece, warps in ((8, 4), (4, 8)):
        pairs = []
        for r in runs:
            twin = by.get((layout(r), r["blocks_per_sm"], 16))
            if r["piece_bytes"] == piece and twin and unmerged(r) and unmerged(twin) and twin["read_back"] > 0.005:
                pairs.append((r, twin))
                print("| %d B | %d | %s | %d | %.3f | %.3f | %.2f |" % (piece, warps, layout(r), r["blocks_per_sm"],
                      r["read_back"], twin["read_back"], r["read_back"] / twin["read_back"]))
        factors.append(through_origin([b["read_back"] for _, b in pairs], [a["read_back"] for a, _ in pairs]))
    print("\nsector_warp_factors (4 and 8 warps a sector): [%.3f, %.3f]" % tuple(factors))
    # The check of counting a line by its share of partly written sectors: a block writing one sector of each
    # of 128 lines counts as 32 lines (memsim), not 128; measured against the runs of 32 and 64 whole lines.
    spread = "one sector of 128 lines a block"
    rows = [(r, by.get(("32 lines a block", r["blocks_per_sm"], r["piece_bytes"])),
             by.get(("64 lines a block", r["blocks_per_sm"], r["piece_bytes"]))) for r in runs if layout(r) == spread]
    if rows:
        print("\n| pieces | blocks / SM | read-back: one sector of 128 lines | 32 lines whole | 64 lines whole |")
        print("|---|---|---|---|---|")
        for r, a, b in rows:
            if a and b:
                print("| %d B | %d | %.3f | %.3f | %.3f |" % (r["piece_bytes"], r["blocks_per_sm"], r["read_back"],
                                                             a["read_back"], b["read_back"]))


def main():
    args = sys.argv[1:]
    extra = {}
    pieces = []
    while len(args) > 2 and args[-3] in ("--wide", "--warps", "--pieces"):
        if args[-3] == "--pieces":
            pieces.insert(0, (args[-2], args[-1]))
        else:
            extra[args[-3]] = (args[-2], args[-1])
        args = args[:-3]
    if len(args) != 2:
        sys.exit(__doc__)
    runs, out_bytes = load_runs(args[0], args[1])
    runs = [r for r in runs if r.get("word_bytes", 4) == 4]

    # The runs with each line from 2 or 4 warps check memsim's weighting of such lines: they are not fitted.
    for r in runs:
        r["L"] = memsim_lines(r)
    fit = [r for r in runs if r["blocks_across"] == 1 and r["row_pad_words"] == 0 and "contiguous" not in r["name"]
           and r.get("warps_per_line", 0) in (0, 8) and "one warp" not in r["name"]
           and r["requests"] >= 0.6 * r["line_requests"] and r["read_back"] > 0.005]
    xs = [math.log(r["L"]) for r in fit]
    ys = [r["read_back"] for r in fit]
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    from_lines = math.exp(mx - my / slope)

    def e(lines):
        return max(0.0, slope * math.log(lines / from_lines)) if lines > 0 else 0.0

    pairs = launch_order_pairs(runs, lambda name: name.startswith("stores K=") and name.endswith("interleaved"))
    by_name = {(r["name"], r["blocks_per_sm"]): r for r in runs}
    checks = [(r, by_name[(r["name"].replace("row loads", "contiguous loads"), r["blocks_per_sm"])]) for r in runs
              if r["name"].startswith("row loads + ")
              and (r["name"].replace("row loads", "contiguous loads"), r["blocks_per_sm"]) in by_name]
    ps_per_byte = through_origin(*differences(pairs, out_bytes))

    print("fitted on %d runs (e) and %d pairs (time): per_log_lines %.4f, from_lines %.0f, ps_per_byte %.2f"
          % (n, len(pairs), slope, from_lines, ps_per_byte))
    print("\n| run | blocks / SM | L | read-back measured | fitted |")
    print("|---|---|---|---|---|")
    for r in runs:
        if r["blocks_across"] == 1 and r["row_pad_words"] == 0:
            print("| %s%s | %d | %d | %.3f | %.3f |" % (r["name"], "" if r in fit else " (not fitted)", r["blocks_per_sm"],
                                                     r["L"], r["read_back"], e(r["L"])))
    print("\n| pair | blocks / SM | time difference µs | read-back difference | fitted time difference µs |")
    print("|---|---|---|---|---|")
    for label, ps in (("", pairs), (" (check, not fitted)", checks)):
        cx, ct = differences(ps, out_bytes)
        for (a, b), t, x in zip(ps, ct, cx):
            print("| %s vs %s%s | %d | %.1f | %.3f | %.1f |" % (a["name"], b["name"], label, a["blocks_per_sm"], t / 1e6,
                                                               x / out_bytes, ps_per_byte * x / 1e6))
    if "--wide" in extra:
        wide_lanes(*extra["--wide"], from_lines)
    if "--warps" in extra:
        warp_share_check(*extra["--warps"], e)
    if pieces:
        sector_warp_factors(pieces)


if __name__ == "__main__":
    main()
