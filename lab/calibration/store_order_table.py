#!/usr/bin/env python3
"""The table of a memsim-microbench --store-order run and its Nsight Compute pass (--store-order --stores-only):

  store_order_table.py RUN.json [RUN.ncu.csv] [--memsim BIN --device NAME]

First the staged copy's stores (tile_stores): each tile's time with its blocks along the output's rows and down
them. Then the strided stores, for each lane width, piece size and occupancy: the median time with consecutive
blocks down the rows (a transpose's order, the calibration's strided stores) and along them (copy_shared's), each
beside the whole
sectors from the same lanes in the same order (the floor), the pieces' cost beyond that floor both ways and its
ratio along / down, and, with the ncu pass, the share of the sectors whose pieces reach the L2 as one write
((pieces a sector - L2 write sectors a sector) / (pieces a sector - 1); 0: every piece its own write, as memsim
counts them). The ncu pass launches the runs once each in the order of RUN.json; its kernels of each benchmark are
matched to that benchmark's runs by that order, the ncu page read once. With --memsim, each tile run is also
predicted by that memsim on the profile NAME (tile_stores_kernel.hpp, the kernel's own index math), beside it.

Standard library only. Exit 2 with one line on stderr for a file that cannot be read or that does not match.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: Nsight Compute's pages)
from memsim_run import Error  # noqa: E402


def piece_bytes(p):
    return min(32, 32 // p["rows_per_request"] * p["elem_bytes"])


WRITES = "lts__t_sectors_srcunit_tex_op_write.sum"


def writes_a_sector(runs, kernels, prefix, marks, argv):
    """Per run of `runs` (one benchmark's, in launch order), the L2's sector writes a sector of its output from the
    ncu pass's `kernels` whose names start with `prefix`, each matched by order, its name checked to hold every
    text of `marks(params)` (its template arguments) and its metric there; None for every run without an ncu pass."""
    if kernels is None:
        return [None] * len(runs)
    mine = [k for k in kernels if k[0].startswith(prefix)]
    bench = prefix[len("void "):-1]
    if len(mine) != len(runs):
        raise Error(f"{argv[2]}: {len(mine)} {bench} kernels, {argv[1]} has {len(runs)} runs")
    writes = []
    for i, (run, (name, m)) in enumerate(zip(runs, mine)):
        p = run["params"]
        if any(mark not in name for mark in marks(p)):
            raise Error(f"{argv[2]}: kernel {i} is {name[:70]}, the run has blocks {p.get('blocks', 'down')}"
                        + (f", tile {p['tile']}" if "tile" in p else ""))
        if WRITES not in m:
            raise Error(f"{argv[2]}: kernel {i} has no {WRITES}")
        writes.append(m[WRITES] / (p["side"] ** 2 * p["elem_bytes"] / 32))
    return writes


KERNEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tile_stores_kernel.hpp")


def predicted_tile_time(memsim, device, p):
    """memsim's time for one tile_stores run (its params p), from the kernel file."""
    dtype = {2: "f16", 4: "f32"}.get(p["elem_bytes"])
    if dtype is None:
        raise Error(f"a tile run of {p['elem_bytes']}-byte elements: memsim replays 2 and 4")
    args = ["--kernel-file", KERNEL, "--define", f"TS_TW={p['tile']}", "--define",
            f"TS_DOWN={int(p['blocks'] == 'down')}", "--matrix", f"{p['side']}x{p['side']}", "--dtype", dtype,
            "--block", p["block"], "--tile", f"{p['tile']}x{p['tile']}", "--device", device, "--format", "json"]
    return memsim_run.memsim_report(memsim, args)["prediction"]["time_us"]


def tile_table(doc, kernels, argv, memsim=None, device=None):
    """The lines of the table of tile_stores: each tile's time with its blocks along the output's rows and down
    them, their ratio, with the ncu pass the L2's sector writes a sector of the output both ways, and with memsim
    its prediction both ways."""
    runs = [r for r in doc["runs"] if r["bench"] == "tile_stores"]
    if not runs:
        return []
    out = []
    writes = writes_a_sector(runs, kernels, "void tile_stores<",
                             lambda p: [f", {p['tile']}, ", f", {int(p['blocks'] == 'down')}>"], argv)
    predicted = (memsim_run.parallel_map(lambda r: predicted_tile_time(memsim, device, r["params"]), runs,
                                         os.cpu_count() or 2) if memsim else [None] * len(runs))
    by = {}
    for run, w, t in zip(runs, writes, predicted):
        p = run["params"]
        by[(p["elem_bytes"], p["tile"], p["block"], p["blocks"])] = (run["time_us"]["median"], w, t)
    out.append("| lanes | tile (row bytes) | block | along µs | down µs | along / down "
               "| L2 writes a sector along / down | memsim along / down µs | memsim along / down |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (elem, tile, block, order) in sorted(by):
        if order != "across":
            continue
        along, w_along, t_along = by[(elem, tile, block, "across")]
        down, w_down, t_down = by.get((elem, tile, block, "down"), (None, None, None))
        if down is None:
            raise Error(f"{argv[1]}: tile {tile} of {elem}-byte elements: no run down")
        ws = "" if w_along is None else f"{w_along:.2f} / {w_down:.2f}"
        ts = ("| |" if t_along is None else
              f"| {t_along:.1f} / {t_down:.1f} ({100 * (t_along / along - 1):+.0f}% / "
              f"{100 * (t_down / down - 1):+.0f}%) | {t_along / t_down:.2f} |")
        out.append(f"| {elem} B | {tile} ({tile * elem} B) | {block} | {along:.1f} | {down:.1f} | "
                   f"{along / down:.2f} | {ws} {ts}")
    return out + [""]


def main(argv):
    usage = "usage: store_order_table.py RUN.json [RUN.ncu.csv] [--memsim BIN --device NAME]"
    memsim = device = None
    if "--memsim" in argv:
        i = argv.index("--memsim")
        if "--device" not in argv or i + 1 >= len(argv) or argv.index("--device") + 1 >= len(argv):
            raise Error(usage + " (--memsim takes a binary and --device a profile)")
        j = argv.index("--device")
        memsim, device = argv[i + 1], argv[j + 1]
        argv = [a for k, a in enumerate(argv) if k not in (i, i + 1, j, j + 1)]
    elif "--device" in argv:
        raise Error(usage + " (--device goes with --memsim)")
    if len(argv) not in (2, 3):
        raise Error(usage)
    doc, runs = memsim_run.read_microbench_run(argv[1], "strided_store")
    if not runs:
        raise Error(f"{argv[1]}: no strided_store runs")
    gpu = doc.get("device", {})
    out = [f"# {gpu.get('name', '?')}, CUDA driver API {gpu.get('driver_version', '?')}: "
           "memsim-microbench --store-order", ""]
    kernels = (memsim_run.ncu_launches(argv[2], "a memsim-microbench Nsight Compute pass (--csv)")
               if len(argv) == 3 else None)
    writes = writes_a_sector(runs, kernels, "void strided<", lambda p: [f", {int(p.get('blocks') == 'across')}>"],
                             argv)
    merged = []
    for run, w in zip(runs, writes):
        pieces = 32 // piece_bytes(run["params"])
        merged.append((pieces - w) / (pieces - 1) if w is not None and pieces > 1 else None)
    out += tile_table(doc, kernels, argv, memsim, device)
    by = {}
    for run, mg in zip(runs, merged):
        p = run["params"]
        key = (p["elem_bytes"], piece_bytes(p), p.get("cap_blocks_per_sm", 0), p.get("blocks") == "across")
        by[key] = (run["time_us"]["median"], mg)
    out.append("| lanes | piece | blocks an SM | down | down floor | along | along floor | beyond floor down / along "
               "| along / down | merged down / along |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (elem, piece, cap, across) in sorted(by):
        if across or piece == 32:
            continue
        down, m_down = by[(elem, piece, cap, False)]
        along, m_along = by.get((elem, piece, cap, True), (None, None))
        floor_down = by.get((elem, 32, cap, False), (None,))[0]
        floor_along = by.get((elem, 32, cap, True), (None,))[0]
        if along is None or floor_down is None or floor_along is None:
            raise Error(f"{argv[1]}: lanes of {elem} bytes, {piece}-byte pieces, cap {cap}: a run is missing")
        ex_down, ex_along = down - floor_down, along - floor_along
        ratio = ex_along / ex_down if ex_down > 0 else float("nan")
        mg = "" if m_down is None else f"{m_down:.2f} / {m_along:.2f}"
        out.append(f"| {elem} B | {piece} B | {cap or 'as fit'} | {down:.1f} | {floor_down:.1f} | {along:.1f} | "
                   f"{floor_along:.1f} | {ex_down:.1f} / {ex_along:.1f} | {ratio:.2f} | {mg} |")
    print("\n".join(out))


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Error as e:
        print(f"store_order_table.py: {e}", file=sys.stderr)
        sys.exit(2)
