#!/usr/bin/env python3
"""Puts Nsight Compute's warp-instruction counts into a memsim-microbench document.

The instruction-issue benchmarks (issue_copy, issue_tile) are issue-bound by design, so memsim-calibrate needs
the warp instructions they execute, and SASS is not countable from their source. Nsight Compute counts them
(smsp__inst_executed.sum) on one launch of each (`memsim-microbench --issue-only`):

    ncu --csv --print-units base --print-metric-name name --print-kernel-base demangled \\
        --metrics smsp__inst_executed.sum -k regex:issue_ memsim-microbench --issue-only > issue_ncu.csv
    add_instructions.py microbench.json issue_ncu.csv > microbench_with_instructions.json

Every issue run of the document must find its count, or the script fails (exit 1).
"""
import csv
import json
import re
import sys

METRIC = "smsp__inst_executed.sum"
NAME = re.compile(r"issue_(copy|tile)<(\d+)>")


def counts_from_ncu(path):
    """{(bench, rounds): instructions} from ncu's CSV details page."""
    out = {}
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own log lines start with "=="
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != METRIC:
            continue
        m = NAME.search(row.get("Kernel Name", ""))
        if not m:
            continue
        key = ("issue_" + m.group(1), int(m.group(2)))
        out[key] = float(row["Metric Value"].replace(",", ""))
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: add_instructions.py MICROBENCH.json NCU.csv > OUT.json\n")
        return 2
    doc = json.load(open(argv[1]))
    counts = counts_from_ncu(argv[2])
    missing = []
    for run in doc.get("runs", []):
        if not run["bench"].startswith("issue_"):
            continue
        key = (run["bench"], int(run["params"]["rounds"]))
        if key not in counts:
            missing.append("%s rounds=%d" % key)
            continue
        run["counts"]["instructions"] = counts[key]
        run["counts_note"] = "instructions: Nsight Compute %s of one launch" % METRIC
    if missing:
        sys.stderr.write("add_instructions.py: no ncu count for %s\n" % ", ".join(missing))
        return 1
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
