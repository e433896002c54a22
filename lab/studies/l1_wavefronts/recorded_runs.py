#!/usr/bin/env python3
"""The replay's L1 wavefronts of global requests against every committed run that measured them under Nsight
Compute: the suite at 8192x8192 (validate/results/l1_wavefronts.md), the held-out sweeps (lab/heldout/results/
h100_ncu, h100_b_ncu, and h100_c_ncu, chosen and run after the rule) and the ragged sizes
(validate/results/odd_sizes.json, h200_odd_sizes.json, and odd_sizes_f16_f64.json, run after the rule). For each
set: measured / memsim (min, median, max) and the configurations outside memsim-validate's band (-1%/+30%);
with --list, those configurations.

    lab/studies/l1_wavefronts/recorded_runs.py MEMSIM_BINARY [--list]
"""
import glob
import os
import re
import statistics
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: memsim's report, reading files, the error rule)

USAGE = "lab/studies/l1_wavefronts/recorded_runs.py MEMSIM_BINARY [--list]"
METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"
BAND = (0.99, 1.30)
SETS = [("held-out set c (H100, after the rule)", ["lab/heldout/results/h100_c_ncu/*.json.gz"]),
        ("held-out sweeps a, b (H100)", ["lab/heldout/results/h100_ncu/*.json.gz", "lab/heldout/results/h100_b_ncu/*.json.gz"]),
        ("ragged sizes (H100)", ["validate/results/odd_sizes.json"]),
        ("ragged sizes (H200)", ["validate/results/h200_odd_sizes.json"]),
        ("ragged sizes f16, f64 (H100, after the rule)", ["validate/results/odd_sizes_f16_f64.json"])]


def runs():
    """(set, name, measured, memsim-validate config) of every committed record with the metric."""
    for name, patterns in SETS:
        for path in sorted(p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern))):
            run = memsim_run.read_validation_run(path)
            for i, r in enumerate(run["records"]):
                m = r.get("metrics", {}).get(METRIC, {}).get("measured")
                if m:
                    yield name, r.get("id", "record %d" % i), m, memsim_run.field(r, ("config",), path)
    for line in open(os.path.join(ROOT, "validate", "results", "l1_wavefronts.md")):
        row = re.match(r"\| (\w+) \| (f\d+) \| (\d+x\d+) \| (\d+) \| (\d+) \|", line)
        if row:
            kernel, dtype, block, measured, _ = row.groups()
            yield ("suite 8192x8192 (H100)", "%s %s block %s" % (kernel, dtype, block), int(measured),
                   (kernel, dtype, block))


def replayed(binary, run):
    _, _, _, cfg = run
    if isinstance(cfg, tuple):
        report = memsim_run.memsim_json(binary, *cfg, "8192x8192")
    else:
        report = memsim_run.memsim_json_for_config(binary, cfg)
    return memsim_run.field(report, ("metrics", METRIC), "memsim's report")


def main():
    args = memsim_run.check_args(sys.argv, __doc__, USAGE, 1, 2, free=(1,))
    if len(args) == 2 and args[1] != "--list":
        memsim_run.fail("unknown option %s; usage: %s (--help for more)" % (args[1], USAGE))
    binary = args[0]
    memsim_run.check_binary(binary)
    all_runs = list(runs())
    counts = memsim_run.parallel_map(lambda r: replayed(binary, r), all_runs, workers=os.cpu_count() or 2)
    results = [(name, ident, measured / n if n else float("inf"))
               for (name, ident, measured, _), n in zip(all_runs, counts)]
    print("| runs | configurations | measured / memsim: min | median | max | outside -1%/+30% |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in dict.fromkeys(n for n, _, _ in results):
        r = [x for n, _, x in results if n == name]
        out = sum(1 for x in r if not BAND[0] <= x <= BAND[1])
        print("| %s | %d | %.3f | %.3f | %.3f | %d |" % (name, len(r), min(r), statistics.median(r), max(r), out))
    if len(args) == 2:
        for name, ident, x in results:
            if not BAND[0] <= x <= BAND[1]:
                print("    %s: %s %.3f" % (name, ident, x))


if __name__ == "__main__":
    memsim_run.main_guard(main)
