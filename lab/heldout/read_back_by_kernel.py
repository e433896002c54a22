#!/usr/bin/env python3
"""The read-back memsim models beside the one Nsight Compute measured, by card and kernel, over every held-out set
run under Nsight Compute (results/*_ncu/): the bytes read from DRAM beyond the loads' own (memsim's loads' bytes for
both sides), as a share of the output. A count of part-written lines is judged here before the times: which
kernels read back, and where memsim's count falls short.

    read_back_by_kernel.py --memsim build/app/memsim [--report FILE]     (from the repository root)

memsim runs --no-compile (the shipped table or the estimate), with each set's own card's profile. `naive` is
broken down by dtype and by whether its block is a power of two wide: the odd-width blocks' tiles end rows
mid-line, and the rest of those lines comes from other blocks.
"""
import argparse
import concurrent.futures
import glob
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: one place that spells memsim's command line)
from judge import read_back_pair  # noqa: E402  (the same read-back judge.py's DRAM lines report)


def records():
    """(card, record) for every record of a *_ncu set with DRAM bytes read measured."""
    for d in sorted(glob.glob(os.path.join(ROOT, "lab", "heldout", "results", "*_ncu"))):
        card = os.path.basename(d).split("_")[0]
        for path in memsim_run.run_files(d):
            for r in memsim_run.read_validation_run(path)["records"]:
                if r.get("metrics", {}).get("dram__bytes_read.sum", {}).get("measured") is not None:
                    yield card, r


def read_backs(memsim, card, r):
    """(memsim's read-back, the measured one), each over the output's bytes."""
    p = memsim_run.memsim_json_for_config(memsim, r["config"], ["--device", card, "--no-compile"])["prediction"]
    return read_back_pair(r, p["dram_bytes"])


def line(label, pairs):
    n = len(pairs)
    return "  %-34s %4d   %.3f   %.3f   %+.3f   %4d" % (
        label, n, sum(m for m, _ in pairs) / n, sum(x for _, x in pairs) / n, sum(m - x for m, x in pairs) / n,
        sum(1 for _, x in pairs if x > 0.05))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--report")
    a = ap.parse_args()
    todo = list(records())
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda t: read_backs(a.memsim, *t), todo))
    by_kernel, by_naive = defaultdict(list), defaultdict(list)
    for (card, r), pair in zip(todo, results):
        c = r["config"]
        by_kernel[(card, c["kernel"])].append(pair)
        if c["kernel"] == "naive":
            bx = c["block"]["x"]
            width = "a power of two wide" if bx & (bx - 1) == 0 else "other widths"
            by_naive[(card, c["dtype"], width)].append(pair)
    out = ["The read-back (DRAM bytes read beyond the loads' own, x the output), memsim against Nsight Compute, over "
           "the held-out sets' ncu runs (%d configurations)" % len(todo),
           "  %-34s %4s   %5s   %5s   %6s   %4s" % ("card, kernel", "n", "memsim", "measured", "mean diff",
                                                  "measured > 0.05")]
    for (card, kernel), pairs in sorted(by_kernel.items()):
        out.append(line("%s %s" % (card, kernel), pairs))
    out.append("naive by dtype and block width:")
    for (card, dtype, width), pairs in sorted(by_naive.items()):
        out.append(line("%s %s, %s" % (card, dtype, width), pairs))
    memsim_run.emit_report(out, a.report)


if __name__ == "__main__":  # a missing or malformed input: one line, exit 2
    memsim_run.main_guard(main, also=(OSError, ValueError, KeyError))
