#!/usr/bin/env python3
"""The table of docs/history/model_notebook.md, "Loads out of order wait longer", from memsim-microbench --dram-order-latency runs:
per copy shape (lane bytes, chunk bytes, blocks an SM), the plain copy's median time and how much longer the same
copy takes with its reads out of order (1,024 columns of chunks), its writes out of order (1,024 columns) and its
reads out of order with each transposed row reached once a window (16,384 columns), one column group per device
(files of the same device are read as one: --dram-order's bandwidth-bound runs beside the study's).

  order_latency_table.py RUN.json [RUN.json ...]     (e.g. lab/calibration/results/h100_dram_order.json
                                                      validate/results/h100_dram_order_latency.json)

Standard library only. Exit 2 with one line on stderr for a file that cannot be read, or a device whose files hold
no plain copy to compare with.
"""
import json
import sys


class Error(Exception):
    pass


def shape(params):
    """(lane bytes, chunk bytes, blocks an SM (0: as many as fit), ns each thread sleeps after its copy) of a run,
    with the defaults the runs leave out."""
    return (params.get("lane_bytes", 16), params.get("chunk_bytes", 128), params.get("cap_blocks_per_sm", 0),
            params.get("sleep_ns", 0))


def read(path):
    """{shape: copy µs} and {(shape, 'gather' or 'scatter', cols): µs} of one run file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        copies, moved = {}, {}
        for run in doc["runs"]:
            if not run["bench"].startswith("chunks_"):
                continue
            params, median = run["params"], run["time_us"]["median"]
            if isinstance(median, bool) or not isinstance(median, (int, float)) or not 0 < median < float("inf"):
                raise Error(f"{path}: run {run['bench']} {json.dumps(params)}: time_us.median is not a positive "
                            f"number: {median!r}")
            if params["cols"] == 1:
                copies[shape(params)] = median
            else:
                moved[(shape(params), run["bench"][len("chunks_"):], params["cols"])] = median
        name = str(doc.get("device", {}).get("name", path))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise Error(f"{path}: not a memsim-microbench run ({type(e).__name__}: {e})")
    return name, copies, moved


def cells(copies, moved, key):
    base = copies.get(key)
    if base is None:
        return ["", "", "", ""]
    out = [f"{base:.1f} µs"]
    for side, cols in (("gather", 1024), ("scatter", 1024), ("gather", 16384)):
        t = moved.get((key, side, cols))
        out.append(f"{100 * (t / base - 1):+.1f}%" if t is not None else "")
    return out


def main(argv):
    if len(argv) < 2:
        print("order_latency_table.py: usage: order_latency_table.py RUN.json [RUN.json ...]", file=sys.stderr)
        return 2
    try:
        devices = {}  # name -> (copies, moved), in the order first met
        for p in argv[1:]:
            name, copies, moved = read(p)
            merged = devices.setdefault(name, ({}, {}))
            merged[0].update(copies)
            merged[1].update(moved)
        for name, (copies, _) in devices.items():
            if not copies:
                raise Error(f"{name}: no plain copy (cols 1) to compare with in the files given")
    except Error as e:
        print(f"order_latency_table.py: {e}", file=sys.stderr)
        return 2
    runs = [(name, copies, moved) for name, (copies, moved) in devices.items()]
    keys = sorted({k for _, copies, _ in runs for k in copies}, key=lambda k: (-k[0], -k[1], k[2] or 99, k[3]))
    head = ["copy shape (lanes, chunk, blocks an SM)"]
    for name, _, _ in runs:
        head += [f"{name} copy", "reads out of order", "writes out of order", "reads, each row once a window"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for k in keys:
        row = [f"{k[0]} B, {k[1]} B, {k[2] or 'all'}" + (f", then {k[3]} ns asleep" if k[3] else "")]
        for _, copies, moved in runs:
            row += cells(copies, moved, k)
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
