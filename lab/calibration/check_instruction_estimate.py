#!/usr/bin/env python3
"""Compares memsim's instruction estimate (the warp instructions its issue term charges, "prediction" ->
"instructions" of `memsim --json`) with Nsight Compute's smsp__inst_executed.sum on every record of the given
validation runs, per configuration and per kernel. Nothing is fitted: the static shapes' counts come from the
compiled kernels' SASS (codegen/launch_instructions.hpp), the run-time shapes' estimate from the profile's constants
(lab/calibration/fit_instruction_estimate.py). Beside it, the run-time shapes' estimate (the replay's
operations) for every configuration, as memsim charged static shapes before the SASS table: the same h100
profile with another compute capability, which the table does not apply to.

    lab/calibration/check_instruction_estimate.py MEMSIM_BINARY [--device h100] RUN.json [RUN.json ...]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "studies", "instruction_diagnostic"))
from instruction_diagnostic import memsim_json  # noqa: E402  (the same memsim call for a run's config)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        return report(a, tmp)
    finally:
        shutil.rmtree(tmp)


def operations_profiles(tmp):
    """A copy of the device profiles whose h100 is of another compute capability: no SASS table applies."""
    d = os.path.join(tmp, "devices")
    shutil.copytree(os.path.join(HERE, "..", "..", "model", "devices"), d)
    path = os.path.join(d, "h100.json")
    prof = json.load(open(path))
    prof["compute_capability"] = "10.0"  # a shipped one (profiles must name one) the table is not for
    json.dump(prof, open(path, "w"))
    return dict(os.environ, MEMSIM_DEVICE_DIR=d)


def report(a, tmp):
    ops_env = operations_profiles(tmp)
    worst_all = 0.0
    for path in a.runs:
        doc = json.load(open(path))
        ctx = doc.get("context", {})
        device = ctx.get("device", {}).get("name") if isinstance(ctx.get("device"), dict) else ctx.get("device")
        recs = [r for r in doc["records"]
                if r.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured") is not None]

        def estimate(rec):
            p = memsim_json(a.binary, rec["config"])["prediction"]
            ops = memsim_json(a.binary, rec["config"], env=ops_env)["prediction"]["instructions"]
            return p["instructions"], p["instructions_basis"], ops

        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            estimates = list(pool.map(estimate, recs))
        print("## %s (%s)\n" % (os.path.relpath(path), device or "device not recorded"))
        print("| configuration | GPU shape | measured (ncu) | estimated | error | basis | operations estimate "
              "| its error |")
        print("|---|---|---|---|---|---|---|---|")
        per_kernel, per_kernel_ops, errs, errs_ops = {}, {}, [], []
        for rec, (est, basis, ops) in zip(recs, estimates):
            y = rec["metrics"]["smsp__inst_executed.sum"]["measured"]
            err, err_ops = est / y - 1, ops / y - 1
            k = rec["config"]["kernel"]
            per_kernel[k] = max(per_kernel.get(k, 0.0), abs(err))
            per_kernel_ops[k] = max(per_kernel_ops.get(k, 0.0), abs(err_ops))
            errs.append(abs(err))
            errs_ops.append(abs(err_ops))
            worst_all = max(worst_all, abs(err))
            print("| %s | %s | %.0f | %.0f | %+.2f%% | %s | %.0f | %+.1f%% |" % (
                rec["id"], rec["config"].get("shape"), y, est, 100 * err, basis, ops, 100 * err_ops))
        print("\nlargest |error| per kernel: " + ", ".join("%s %.2f%%" % (k, 100 * v) for k, v in per_kernel.items()))
        print("the operations estimate's: " + ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in per_kernel_ops.items()))
        print("all %d configurations: mean |error| %.2f%%, largest %.2f%% "
              "(operations estimate: mean %.1f%%, largest %.1f%%)\n"
              % (len(errs), 100 * sum(errs) / len(errs), 100 * max(errs), 100 * sum(errs_ops) / len(errs_ops),
                 100 * max(errs_ops)))
    print("largest |error| over every run: %.2f%%" % (100 * worst_all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
