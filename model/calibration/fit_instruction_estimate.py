#!/usr/bin/env python3
"""Fits the h100 profile's instruction-estimate constants (model/profile.hpp):

    warp instructions = instructions_per_warp x warps + instructions_per_source_op x operations

where `operations` are the replay's lane-wise operations (sim/lanes.hpp) and the left side is Nsight
Compute's smsp__inst_executed.sum. Only the copy kernel's counts are used (every size, dtype and block of the
given validation runs): instruction COUNTS of the simplest body, no time of any kernel. The other kernels'
counts then test the estimate.

    model/calibration/fit_instruction_estimate.py MEMSIM_BINARY RUN.json [RUN.json ...]
"""
import json
import os
import shutil
import sys
import tempfile


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "validate"))
from instruction_diagnostic import memsim_json  # noqa: E402  (the same memsim call for a run's config)


def operations(binary, device_dir, cfg):
    env = dict(os.environ, MEMSIM_DEVICE_DIR=device_dir)
    return memsim_json(binary, cfg, env=env)["prediction"]["instructions"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, runs = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        # A profile whose estimate is the operations themselves (1 per operation, nothing per warp).
        for f in os.listdir(os.path.join(HERE, "..", "devices")):
            shutil.copy(os.path.join(HERE, "..", "devices", f), tmp)
        prof = json.load(open(os.path.join(tmp, "h100.json")))
        prof["cost"]["instructions_per_warp"] = 0
        prof["cost"]["instructions_per_source_op"] = 1
        json.dump(prof, open(os.path.join(tmp, "h100.json"), "w"))
        points = []
        for path in runs:
            for rec in json.load(open(path))["records"]:
                cfg = rec["config"]
                measured = rec.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured")
                if measured is None:
                    continue
                warps = cfg["blocks"] * ((cfg["threads_per_block"] + 31) // 32)
                points.append((rec["id"], cfg["kernel"], warps, operations(binary, tmp, cfg), measured))
    fit = [p for p in points if p[1] == "copy"]
    # Least squares for y = a w + b o (normal equations, 2x2).
    sww = sum(w * w for _, _, w, o, y in fit)
    swo = sum(w * o for _, _, w, o, y in fit)
    soo = sum(o * o for _, _, w, o, y in fit)
    swy = sum(w * y for _, _, w, o, y in fit)
    soy = sum(o * y for _, _, w, o, y in fit)
    det = sww * soo - swo * swo
    a = (swy * soo - soy * swo) / det
    b = (soy * sww - swy * swo) / det
    print("fitted on %d copy configurations: instructions_per_warp %.2f, instructions_per_source_op %.4f" % (len(fit), a, b))
    print("\n| configuration | operations | estimated | measured (ncu) | error |")
    print("|---|---|---|---|---|")
    errors = []
    for name, kernel, w, o, y in points:
        est = a * w + b * o
        errors.append(abs(est - y) / y)
        print("| %s | %.0f | %.0f | %.0f | %+.1f%% |" % (name, o, est, y, 100 * (est / y - 1)))
    print("\nall %d configurations: mean absolute error %.1f%%, largest %.1f%%"
          % (len(points), 100 * sum(errors) / len(errors), 100 * max(errors)))


if __name__ == "__main__":
    main()
