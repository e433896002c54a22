#!/usr/bin/env python3
"""Gives a memsim-microbench run's strided stores the L2 sector writes Nsight Compute measured, for a study of the
pieces the L1 merges (docs/history/model_notebook.md, "The L1 merges a sector's pieces from two warps"):

  add_l2_write_sectors.py RUN.json MEASURED.json MEASURED.ncu.csv > RUN_WITH_WRITES.json

MEASURED.json and MEASURED.ncu.csv are a memsim-microbench --narrow-lanes run and its ncu pass (--narrow-lanes
--stores-only, lts__t_sectors_srcunit_tex_op_write.sum), whose kernels are matched to its runs in launch order and
checked by name. Every strided_store run of RUN.json with the same element size, rows a request, side, blocks an SM
cap and lane order as a measured one gets `counts.l2_write_sectors_measured`, which memsim-calibrate then reads
(lab/calibration/microbench_records.cpp): the cost model charges the pieces beyond those writes as whole sectors.
The other runs are copied unchanged.

Standard library only. Exit 2 with one line on stderr for a file that cannot be read or that does not match.
"""
import json
import sys

import narrow_lanes_table
from narrow_lanes_table import Error
import memsim_run  # noqa: E402  (on the path narrow_lanes_table adds: the error rule)


def key(run):
    p = run.get("params", {})
    return (p.get("elem_bytes"), p.get("rows_per_request"), p.get("side"), p.get("cap_blocks_per_sm", 0),
            p.get("lanes", ""))


def measured_writes(doc, path_json, path_csv):
    """{run key: L2 sector writes} of the strided_store runs of a measured run and its ncu pass."""
    runs = [r for r in doc["runs"] if r.get("bench") == "strided_store"]
    kernels = narrow_lanes_table.matched_kernels(runs, path_json, path_csv)
    return {key(run): m["lts__t_sectors_srcunit_tex_op_write.sum"] for run, (_, m) in zip(runs, kernels)}


def main(argv):
    if len(argv) != 4:
        raise Error("usage: add_l2_write_sectors.py RUN.json MEASURED.json MEASURED.ncu.csv > OUT.json")
    doc, _ = memsim_run.read_microbench_run(argv[1])
    measured, _ = memsim_run.read_microbench_run(argv[2])
    writes = measured_writes(measured, argv[2], argv[3])
    for run in doc["runs"]:
        if run.get("bench") == "strided_store" and key(run) in writes:
            run.setdefault("counts", {})["l2_write_sectors_measured"] = writes[key(run)]
    json.dump(doc, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(lambda: main(sys.argv)))
