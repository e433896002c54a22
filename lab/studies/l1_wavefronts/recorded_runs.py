#!/usr/bin/env python3
"""The replay's L1 wavefronts of global requests against every committed run that measured them under Nsight
Compute: the suite at 8192x8192 (validate/results/l1_wavefronts.md), the held-out sweeps (lab/heldout/results/
h100_ncu, h100_b_ncu) and the ragged sizes (validate/results/odd_sizes.json, h200_odd_sizes.json, and
odd_sizes_f16_f64.json, measured after the rule was chosen). For each set:
measured / memsim (min, median, max) and the configurations outside memsim-validate's band (-1%/+30%).

    lab/studies/l1_wavefronts/recorded_runs.py MEMSIM_BINARY [--list]
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum"


def runs():
    sets = [("held-out set c (H100, after the rule)", sorted(glob.glob(os.path.join(ROOT, "lab/heldout/results/h100_c_ncu/*.json")))),
            ("held-out sweeps (H100)", sorted(glob.glob(os.path.join(ROOT, "lab/heldout/results/h100_ncu/*.json")) +
                                           glob.glob(os.path.join(ROOT, "lab/heldout/results/h100_b_ncu/*.json")))),
            ("ragged sizes (H100)", [os.path.join(ROOT, "validate/results/odd_sizes.json")]),
            ("ragged sizes (H200)", [os.path.join(ROOT, "validate/results/h200_odd_sizes.json")]),
            ("ragged sizes f16, f64 (H100, after the rule)",
             [os.path.join(ROOT, "validate/results/odd_sizes_f16_f64.json")])]
    for name, files in sets:
        for f in files:
            for r in json.load(open(f))["records"]:
                m = r.get("metrics", {}).get(METRIC)
                if not m or not m.get("measured"):
                    continue
                c = r["config"]
                args = ["--kernel", c["kernel"], "--dtype", c["dtype"],
                        "--matrix", "%dx%d" % (c["matrix"]["width"], c["matrix"]["height"]),
                        "--block", "%dx%d" % (c["block"]["x"], c["block"]["y"]),
                        "--tile", "%dx%d" % (c["tile"]["x"], c["tile"]["y"])]
                if c.get("shared_bytes_per_block"):
                    args += ["--pad", str(c["pad"])]
                yield name, r["id"], m["measured"], args
    for line in open(os.path.join(ROOT, "validate/results/l1_wavefronts.md")):
        row = re.match(r"\| (\w+) \| (f\d+) \| (\d+x\d+) \| (\d+) \| (\d+) \|", line)
        if row:
            kernel, dtype, block, measured, _ = row.groups()
            yield ("suite 8192x8192 (H100)", "%s %s block %s" % (kernel, dtype, block), int(measured),
                   ["--kernel", kernel, "--dtype", dtype, "--block", block, "--matrix", "8192x8192"])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    memsim = sys.argv[1]

    def ratio(run):
        name, ident, measured, args = run
        out = subprocess.run([memsim] + args + ["--format", "json"], capture_output=True, text=True, check=True)
        return name, ident, measured / json.loads(out.stdout)["metrics"][METRIC]

    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(ratio, list(runs())))
    print("| runs | configurations | measured / memsim: min | median | max | outside -1%/+30% |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in dict.fromkeys(n for n, _, _ in results):
        r = [x for n, _, x in results if n == name]
        out = [(i, x) for n, i, x in results if n == name and not 0.99 <= x <= 1.30]
        print("| %s | %d | %.3f | %.3f | %.3f | %d |" % (name, len(r), min(r), statistics.median(r), max(r), len(out)))
    if "--list" in sys.argv:
        for name, ident, x in results:
            if not 0.99 <= x <= 1.30:
                print("    %s: %s %.3f" % (name, ident, x))


if __name__ == "__main__":
    main()
