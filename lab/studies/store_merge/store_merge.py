#!/usr/bin/env python3
"""How many of a staged kernel's partial-sector stores the L1 merges before they reach the L2, from the
committed Nsight Compute runs of held-out sets b and c (lab/heldout/results/h100_b_ncu, h100_c_ncu), beside
memsim's time error for the same configuration (the prediction each run recorded).

Issued: l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum (the sectors the store instructions touch, which the
replay counts exactly); at L2: lts__t_sectors_srcunit_tex_op_write.sum; whole: the output's bytes / 32. The
merged share is (issued - at L2) / (issued - whole): 0 where every partial sector reaches the L2 as issued, 1
where the L1 completes each before it leaves.

    lab/studies/store_merge/store_merge.py
"""
import glob
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: reading runs, the error rule)

USAGE = "lab/studies/store_merge/store_merge.py"
ISSUED, AT_L2 = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_srcunit_tex_op_write.sum"


def main():
    memsim_run.check_args(sys.argv, __doc__, USAGE, 0, 0)
    print("| kernel | dtype | block | tile | issued / whole | at L2 / whole | merged | memsim time error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for f in sorted(glob.glob(os.path.join(ROOT, "lab/heldout/results/h100_[bc]_ncu/*.json.gz"))):
        for r in memsim_run.read_validation_run(f)["records"]:
            c, m = memsim_run.field(r, ("config",), f), memsim_run.field(r, ("metrics",), f)
            if c["kernel"] == "naive":
                continue  # its partial sectors are other blocks' to complete: no warp completes its own
            issued = memsim_run.field(m, (ISSUED, "measured"), f + " " + r.get("id", ""))
            at_l2 = memsim_run.field(m, (AT_L2, "measured"), f + " " + r.get("id", ""))
            whole = c["matrix"]["width"] * c["matrix"]["height"] * c["elem_bytes"] / 32
            if issued <= whole * 1.01:
                continue
            err = r["predicted"]["time_us"] / r["measured"]["time_us"]["median"] - 1
            print("| %s | %s | %dx%d | %dx%d | %.2f | %.2f | %.0f%% | %+.0f%% |"
                  % (c["kernel"], c["dtype"], c["block"]["x"], c["block"]["y"], c["tile"]["x"], c["tile"]["y"],
                     issued / whole, at_l2 / whole, 100 * (issued - at_l2) / (issued - whole), 100 * err))


if __name__ == "__main__":
    memsim_run.main_guard(main)
