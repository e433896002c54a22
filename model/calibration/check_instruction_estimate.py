#!/usr/bin/env python3
"""Compares memsim's instruction estimate (the warp instructions its issue term charges, "prediction" ->
"instructions" of `memsim --json`) with Nsight Compute's smsp__inst_executed.sum on every record of the given
validation runs, per configuration and per kernel. Nothing is fitted: the static shapes' counts come from the
compiled kernels' SASS (model/sass_counts.hpp), the run-time shapes' estimate from the profile's constants
(model/calibration/fit_instruction_estimate.py).

    model/calibration/check_instruction_estimate.py MEMSIM_BINARY [--device h100] RUN.json [RUN.json ...]
"""
import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validate"))
from instruction_diagnostic import memsim_json  # noqa: E402  (the same memsim call for a run's config)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    worst_all = 0.0
    for path in a.runs:
        doc = json.load(open(path))
        ctx = doc.get("context", {})
        device = ctx.get("device", {}).get("name") if isinstance(ctx.get("device"), dict) else ctx.get("device")
        recs = [r for r in doc["records"]
                if r.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured") is not None]

        def estimate(rec):
            p = memsim_json(a.binary, rec["config"])["prediction"]
            return p["instructions"], p["instructions_basis"]

        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            estimates = list(pool.map(estimate, recs))
        print("## %s (%s)\n" % (os.path.relpath(path), device or "device not recorded"))
        print("| configuration | GPU shape | measured (ncu) | estimated | error | basis |")
        print("|---|---|---|---|---|---|")
        per_kernel = {}
        for rec, (est, basis) in zip(recs, estimates):
            y = rec["metrics"]["smsp__inst_executed.sum"]["measured"]
            err = est / y - 1
            k = rec["config"]["kernel"]
            per_kernel[k] = max(per_kernel.get(k, 0.0), abs(err))
            worst_all = max(worst_all, abs(err))
            print("| %s | %s | %.0f | %.0f | %+.2f%% | %s |" % (rec["id"], rec["config"].get("shape"), y, est,
                                                               100 * err, basis))
        print("\nlargest |error| per kernel: " + ", ".join("%s %.2f%%" % (k, 100 * v) for k, v in per_kernel.items()))
        errs = [abs(e / rec["metrics"]["smsp__inst_executed.sum"]["measured"] - 1)
                for rec, (e, _) in zip(recs, estimates)]
        print("all %d configurations: mean |error| %.2f%%, largest %.2f%%\n"
              % (len(errs), 100 * sum(errs) / len(errs), 100 * max(errs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
