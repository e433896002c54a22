#!/usr/bin/env python3
"""The staged kernels' errors (coalesced, padded, copy_shared) over every held-out set's timed runs, by where the
tile's rows end and by the elements a thread moves: the map of where memsim's staged predictions go wrong.

    staged_by_rows.py --memsim build/app/memsim [--report FILE]     (from the repository root)

A tile row of T x element bytes ends on a 128-byte line ("line"), on a sector ("sector": the line is split between
blocks, its sectors whole), on 16 bytes ("16 B": a sector split in halves between blocks) or elsewhere ("other":
quarter sectors and less). Elements a thread: (tile width / block width) x (tile height / block height), rounded
up; past 12 a thread's loads come in two batches or more in the compiled code (lab/studies/cut_lines). memsim
runs --no-compile with each set's own card's profile, as judge.py's "predicted here" lines do. Each group: the
configurations, the mean and median error (predicted / measured - 1), and how many carry a caveat.
"""
import argparse
import concurrent.futures
import glob
import math
import os
import statistics
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: one place that spells memsim's command line)
from judge import records, repredict  # noqa: E402  (the timed records judge.py reads, its prediction of one)

STAGED = ("coalesced", "padded", "copy_shared")
ELEMENT_BYTES = {"f16": 2, "f32": 4, "f64": 8}


def timed_sets():
    """(card, record) for every staged record of every timed held-out set (results/h100*/, results/h200*/, the
    Nsight Compute runs, repeats and side runs left out)."""
    for d in sorted(glob.glob(os.path.join(ROOT, "lab", "heldout", "results", "h[12]00*"))):
        name = os.path.basename(d)
        if not os.path.isdir(d) or any(t in name for t in ("_ncu", "repeat", "rerun", "profiles", "occupancy")):
            continue
        for r in records(memsim_run.run_files(d)):
            if r["config"]["kernel"] in STAGED:
                yield name.split("_")[0], r


def row_end(cfg):
    row_bytes = cfg["tile"]["x"] * ELEMENT_BYTES[cfg["dtype"]]
    return "line" if row_bytes % 128 == 0 else "sector" if row_bytes % 32 == 0 else "16 B" if row_bytes % 16 == 0 \
        else "other"


def elements_a_thread(cfg):
    return math.ceil(cfg["tile"]["x"] / cfg["block"]["x"]) * math.ceil(cfg["tile"]["y"] / cfg["block"]["y"])


def predict(memsim, card, r):
    """(the error, whether the prediction carries a caveat), predicted as judge.py's "predicted here" lines."""
    time_us, _, _, caveats, _, _ = repredict(r, memsim, card, ["--no-compile"])
    return time_us / r["measured"]["time_us"]["median"] - 1, bool(caveats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--report")
    a = ap.parse_args()
    todo = list(timed_sets())
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda t: predict(a.memsim, *t), todo))
    groups = defaultdict(list)
    for (card, r), res in zip(todo, results):
        c = r["config"]
        many = "13 or more" if elements_a_thread(c) > 12 else "12 or fewer"
        groups[(card, c["dtype"], row_end(c), many)].append(res)
    out = ["The staged kernels (coalesced, padded, copy_shared) over the held-out sets' timed runs, %d configurations:"
           " memsim's error by where the tile's rows end and the elements a thread moves" % len(todo),
           "  %-5s %-4s %-7s %-12s %4s %8s %8s %8s" % ("card", "type", "rows end", "elements", "n", "mean", "median",
                                                   "caveats")]
    for key in sorted(groups):
        g = groups[key]
        errors = [e for e, _ in g]
        out.append("  %-5s %-4s %-8s %-12s %4d %+7.1f%% %+7.1f%% %8d" % (
            *key, len(g), 100 * statistics.mean(errors), 100 * statistics.median(errors), sum(1 for _, c in g if c)))
    memsim_run.emit_report(out, a.report)


if __name__ == "__main__":  # a missing or malformed input: one line, exit 2
    memsim_run.main_guard(main, also=(OSError, ValueError, KeyError))
