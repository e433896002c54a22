#!/usr/bin/env python3
"""The table of docs/history/model_notebook.md, "A warp's own pieces in a drain", from a memsim-microbench
--drain-merges run and its Nsight Compute pass (--drain-merges --stores-only, lts__t_sectors_srcunit_tex_op_write.sum):

  drain_merges_table.py RUN.json RUN.ncu.csv

For each element size, stores a warp, warps a block, blocks an SM (as many as fit, or 2) and path (through shared
memory after a barrier, or straight from registers): the median time and the share of the sectors whose two 16-byte
pieces (consecutive stores of one warp) reach the L2 as one write, 2 - L2 sector writes a sector of the output the
launch covers (its whole blocks: 2^26 elements, a few thousand fewer at 3, 5, ... warps a block). The ncu pass's
kernels are matched to the runs in launch order and checked by name.

Standard library only. Exit 2 with one line on stderr for a file that cannot be read or that does not match.
"""
import sys

from narrow_lanes_table import Error, ncu_kernels
import memsim_run  # noqa: E402  (on the path narrow_lanes_table adds: the error rule)


def main(argv):
    if len(argv) != 3:
        raise Error("usage: drain_merges_table.py RUN.json RUN.ncu.csv")
    doc, runs = memsim_run.read_microbench_run(argv[1], "drain_pieces")
    kernels = ncu_kernels(argv[2], "void drain_pieces<")
    if len(kernels) != len(runs):
        raise Error(f"{argv[2]}: {len(kernels)} drain_pieces kernels, {argv[1]} has {len(runs)} runs")
    print(f"{doc['device'].get('name', '?')}, {doc.get('date', '?')}: drain_pieces, up to 2^26 elements, 16-byte pieces")
    print("elem  stores  warps  blocks/SM  path       time µs  merged")
    for i, (run, (name, m)) in enumerate(zip(runs, kernels)):
        p = run["params"]
        want = (f"drain_pieces<unsigned {'short' if p['elem_bytes'] == 2 else 'int'}, {p['stores_a_warp']}, "
                f"{int(p['shared'])}>")
        if want not in name:
            raise Error(f"{argv[2]}: kernel {i} is {name[:70]}, the run is {want}")
        sectors = run["counts"]["dram_write_bytes"] / 32  # the output the launch's whole blocks cover
        merged = 2 - m["lts__t_sectors_srcunit_tex_op_write.sum"] / sectors
        print(f"{p['elem_bytes']:>2} B  {p['stores_a_warp']:>6}  {p['warps_a_block']:>5}  "
              f"{run['occupancy_blocks_per_sm']:>9}  {'shared' if p['shared'] else 'registers':<9} "
              f"{run['time_us']['median']:>8.1f}  {merged:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(lambda: main(sys.argv)))
