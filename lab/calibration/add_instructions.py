#!/usr/bin/env python3
"""Puts Nsight Compute's warp-instruction counts into a memsim-microbench document.

The instruction-issue benchmarks (issue_copy, issue_tile) are issue-bound by design, so memsim-calibrate needs
the warp instructions they execute, and SASS is not countable from their source. Nsight Compute counts them
(smsp__inst_executed.sum) on one launch of each (`memsim-microbench --issue-only`):

    ncu --csv --print-units base --print-metric-name name --print-kernel-base demangled \\
        --metrics smsp__inst_executed.sum -k regex:issue_ memsim-microbench --issue-only > issue_ncu.csv
    add_instructions.py microbench.json issue_ncu.csv > microbench_with_instructions.json

Every issue run of the document must find its count. Every input it can get wrong (a missing or unreadable
file, a document that is not memsim-microbench's or has no issue runs, a CSV without counts or with a count
that is no number, an issue run without its count) gives one line on stderr and exit status 2.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: reading files, the error rule)
from memsim_run import Error  # noqa: E402
from record_lines import record_lines  # noqa: E402  (validate/record_lines.py: the committed runs' layout)

USAGE = "add_instructions.py MICROBENCH.json NCU.csv > OUT.json"
METRIC = "smsp__inst_executed.sum"
NAME = re.compile(r"issue_(copy|tile)<(\d+)>")


def counts_from_ncu(path):
    """{(bench, rounds): instructions} from ncu's CSV details page."""
    out = {}
    what = "Nsight Compute's CSV of the issue benchmarks (NCU.csv)"
    with memsim_run.open_text(path, what) as f:
        try:
            lines = [line for line in f if line.startswith('"')]  # ncu's own log lines start with "=="
        except UnicodeDecodeError:
            raise Error("%s is not a text file (expected %s)" % (path, what)) from None
    try:
        rows = list(csv.DictReader(lines))
    except csv.Error as e:
        raise Error("%s is not a CSV file (%s); expected %s" % (path, e, what)) from None
    for row in rows:
        if row.get("Metric Name") != METRIC:
            continue
        m = NAME.search(row.get("Kernel Name") or "")
        if not m:
            continue
        key = ("issue_" + m.group(1), int(m.group(2)))
        value = row.get("Metric Value") or ""
        try:
            out[key] = float(value.replace(",", ""))
        except ValueError:
            raise Error("%s: %s of %s rounds=%d is no number (%r)"
                        % (path, METRIC, key[0], key[1], value[:40])) from None
    if not out:
        raise Error("%s has no %s of an issue_copy/issue_tile kernel (expected %s, columns \"Kernel Name\", "
                    "\"Metric Name\", \"Metric Value\")" % (path, METRIC, what))
    return out


def issue_runs(path, doc):
    """The document's issue runs, each checked for what the counts go into."""
    if not isinstance(doc, dict) or doc.get("tool") != "memsim-microbench" or not isinstance(doc.get("runs"), list):
        raise Error("%s is not a memsim-microbench document (expected a JSON object with \"tool\": "
                    "\"memsim-microbench\" and a \"runs\" array)" % path)
    runs = []
    for i, run in enumerate(doc["runs"]):
        where = "%s: runs[%d]" % (path, i)
        bench = memsim_run.field(run, ("bench",), where)
        if not isinstance(bench, str):
            raise Error("%s has a bench that is no string" % where)
        if not bench.startswith("issue_"):
            continue
        rounds = memsim_run.field(run, ("params", "rounds"), where)
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
            raise Error("%s (%s) has params.rounds that is no count (%r)" % (where, bench, rounds))
        if not isinstance(memsim_run.field(run, ("counts",), where), dict):
            raise Error("%s (%s) has counts that are no JSON object" % (where, bench))
        runs.append(run)
    if not runs:
        raise Error("%s has no issue runs (issue_copy, issue_tile): no run to add the counts to" % path)
    return runs


def main(argv):
    args = memsim_run.check_args(argv, __doc__, USAGE, 2, 2)
    doc = memsim_run.read_json(args[0], "a memsim-microbench document (MICROBENCH.json)")
    runs = issue_runs(args[0], doc)
    counts = counts_from_ncu(args[1])
    missing = []
    for run in runs:
        key = (run["bench"], int(run["params"]["rounds"]))
        if key not in counts:
            missing.append("%s rounds=%d" % key)
            continue
        run["counts"]["instructions"] = counts[key]
        run["counts_note"] = "instructions: Nsight Compute %s of one launch" % METRIC
    if missing:
        raise Error("no ncu count for %s in %s" % (", ".join(missing), args[1]))
    sys.stdout.write(record_lines(doc))
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(lambda: main(sys.argv)))
