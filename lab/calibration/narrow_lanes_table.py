#!/usr/bin/env python3
"""The tables of docs/history/model_notebook.md, "The L1 merges a sector's pieces from two warps", from a
memsim-microbench --narrow-lanes run and its Nsight Compute pass (--narrow-lanes --stores-only):

  narrow_lanes_table.py RUN.json RUN.ncu.csv [PREDICTED.txt]

For each side, blocks an SM, lane width and piece size: the median time, the time of whole sectors from the same
lanes at the same occupancy (the floor), and the share of the sectors whose two or more pieces reach the L2 as one
write: (pieces a sector - L2 write sectors a sector) / (pieces a sector - 1), from lts__t_sectors_srcunit_tex_op_write
(0: every piece its own write, as memsim counts them; 1: every sector whole). PREDICTED.txt, the output of
`memsim-calibrate --microbench RUN.json --base DEVICE --predict-only`, adds memsim's error beside each run.
The ncu pass launches the runs once each in the order of RUN.json; its kernels are matched to the runs by that order
and checked by name (element type, rows a request, lane order).

Standard library only. Exit 2 with one line on stderr for a file that cannot be read or that does not match.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: Nsight Compute's pages, the error rule)
from memsim_run import Error  # noqa: E402


def ncu_kernels(path, *prefixes):
    """[(kernel name, {metric: value})] of the kernels whose names start with one of prefixes (default: the strided
    ones), in launch order."""
    prefixes = prefixes or ("void strided<",)
    return [k for k in memsim_run.ncu_launches(path, "a memsim-microbench Nsight Compute pass (--csv)")
            if k[0].startswith(prefixes)]


def matched_kernels(runs, path_json, path_csv):
    """The ncu pass's strided kernels, one a run of `runs` (a --narrow-lanes run's strided_store runs, in order),
    each checked by name (element type, rows a request, lane order) and carrying the L2's sector writes."""
    kernels = ncu_kernels(path_csv)
    if len(kernels) != len(runs):
        raise Error(f"{path_csv}: {len(kernels)} strided kernels, {path_json} has {len(runs)} runs")
    for i, (run, (name, m)) in enumerate(zip(runs, kernels)):
        p = run["params"]
        elem, k, row_fast = p["elem_bytes"], p["rows_per_request"], p.get("lanes") == "row_fast"
        want = f"void strided<unsigned {'short' if elem == 2 else 'int'}, {k}, 1, {int(row_fast)}>"
        if not name.startswith(want):
            raise Error(f"{path_csv}: kernel {i} is {name[:60]}, the run is {want}")
        if "lts__t_sectors_srcunit_tex_op_write.sum" not in m:
            raise Error(f"{path_csv}: kernel {i} has no lts__t_sectors_srcunit_tex_op_write.sum")
    return kernels


def predicted_errors(path):
    """memsim's error (%) of each run of a --predict-only report, in its order."""
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Error(f"{path}: {e.strerror}")
    return [float(m.group(1)) for m in (re.search(r"^\s+strided_store .*?([+-]\d+\.\d)%", ln) for ln in lines) if m]


def main(argv):
    if len(argv) not in (3, 4):
        raise Error("usage: narrow_lanes_table.py RUN.json RUN.ncu.csv [PREDICTED.txt]")
    doc, runs = memsim_run.read_microbench_run(argv[1], "strided_store")
    kernels = matched_kernels(runs, argv[1], argv[2])
    errors = predicted_errors(argv[3] if len(argv) == 4 else None)
    if errors is not None and len(errors) != len(runs):
        raise Error(f"{argv[3]}: {len(errors)} strided_store lines, {argv[1]} has {len(runs)} runs")
    rows = {}
    for i, (run, (name, m)) in enumerate(zip(runs, kernels)):
        p = run["params"]
        elem, k, row_fast = p["elem_bytes"], p["rows_per_request"], p.get("lanes") == "row_fast"
        side, cap = p["side"], p.get("cap_blocks_per_sm", 0)
        piece = min(32, 32 // k * elem)
        sectors = side * side * elem / 32
        written = m["lts__t_sectors_srcunit_tex_op_write.sum"] / sectors
        pieces = 32 // piece
        merged = (pieces - written) / (pieces - 1) if pieces > 1 else None
        rows[(side, cap, elem, piece, row_fast)] = (run["time_us"]["median"], merged, errors[i] if errors else None,
                                                    run["occupancy_blocks_per_sm"])
    print(f"{doc['device'].get('name', '?')}, {doc.get('date', '?')}: strided stores, 8 warps a block")
    print("side  blocks/SM  lanes  piece   time µs  whole µs  piece/whole  merged  memsim")
    for key in sorted(rows, key=lambda t: (-t[0], -(t[1] or 99), t[2], -t[3], t[4])):
        side, cap, elem, piece, row_fast = key
        t, merged, err, occ = rows[key]
        if piece == 32:
            continue
        whole = rows.get((side, cap, elem, 32, False))
        print(f"{side:>5} {occ:>9}  {elem:>3} B  {piece:>3} B{'r' if row_fast else ' '} {t:>8.1f}  "
              f"{whole[0] if whole else float('nan'):>8.1f}  {t / whole[0] if whole else float('nan'):>11.2f}  "
              f"{merged:>6.2f}  {'' if err is None else f'{err:+.1f}%':>6}")
    print("(r: the lanes numbered row fastest, naive's order; whole: the same lanes in whole sectors, 2 or 4 rows)")
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(lambda: main(sys.argv)))
