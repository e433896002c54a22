#!/usr/bin/env python3
"""The merged share of memsim-store-merge's runs (store_merge.cu) on each card, from a results directory
holding CARD_store_merge.json (the timed runs) and CARD_store_merge.ncu.csv (the same configurations once
under Nsight Compute, in the same order), for CARD h100 and h200.

Issued: l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum; at L2: lts__t_sectors_srcunit_tex_op_write.sum;
whole: 8192 x 8192 x 4 bytes / 32. Merged share = (issued - at L2) / (issued - whole), as in store_merge.py.

    lab/studies/store_merge/microbench.py [RESULTS_DIR]     (default: the committed results/)
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402

USAGE = "lab/studies/store_merge/microbench.py [RESULTS_DIR]"
ISSUED, AT_L2 = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_srcunit_tex_op_write.sum"
WHOLE = 8192 * 8192 * 4 / 32
CARDS = ("h100", "h200")


def merged(path_json, path_csv):
    """{(run name, blocks an SM): (merged share or None, median us)} of one card, runs and launches matched."""
    doc = memsim_run.read_json(path_json, "a memsim-store-merge run")
    runs = memsim_run.field(doc, ("runs",), path_json)
    launches = memsim_run.ncu_launches(path_csv, "an Nsight Compute --csv page of memsim-store-merge --once")
    if len(runs) != len(launches):
        raise memsim_run.Error("%s has %d runs, %s %d launches" % (path_json, len(runs), path_csv, len(launches)))
    if doc.get("all_checks_passed") is not True:
        raise memsim_run.Error("%s: not every output was right (all_checks_passed is not true)" % path_json)
    out = {}
    for i, (r, (kernel, m)) in enumerate(zip(runs, launches)):
        get = lambda key: memsim_run.field(r, (key,), "%s run %d" % (path_json, i))
        if r.get("runs"):  # pair_runs<D>: D sets a warp, each as two halves back to back
            want = "pair_runs<%d>" % get("distance")
        else:
            want = ("cross" if get("cross") else "self") + "_pieces<%d, %d" % (get("pieces"), get("distance"))
        if want not in kernel:
            raise memsim_run.Error("%s: run %r was launched as %s" % (path_csv, get("name"), kernel))
        issued = memsim_run.field(m, (ISSUED,), path_csv + " " + kernel)
        at_l2 = memsim_run.field(m, (AT_L2,), path_csv + " " + kernel)
        share = (issued - at_l2) / (issued - WHOLE) if issued > 1.01 * WHOLE else None
        out[(get("name"), get("blocks_per_sm"))] = (share, get("median_us"))
    return out


def main():
    args = memsim_run.check_args(sys.argv, __doc__, USAGE, 0, 1)
    results = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    cards = {c: merged(os.path.join(results, c + "_store_merge.json"), os.path.join(results, c + "_store_merge.ncu.csv"))
             for c in CARDS}
    print("| run | blocks an SM | merged, H100 | merged, H200 | H100 µs |")
    print("| --- | --- | --- | --- | --- |")
    pct = lambda s: "—" if s is None else "%.0f%%" % (100 * s)
    for key, (share, us) in cards["h100"].items():
        other = cards["h200"].get(key, (None, None))[0]
        print("| %s | %d | %s | %s | %.1f |" % (key[0], key[1], pct(share), pct(other), us))


if __name__ == "__main__":
    memsim_run.main_guard(main)
