#!/usr/bin/env python3
"""Fits the h100 profile's instruction-estimate constants (model/profile.hpp):

    warp instructions = instructions_per_warp x warps + instructions_per_source_op x operations
                        + the division sequences' instructions

where `operations` are the replay's lane-wise operations (sim/lanes.hpp), the division sequences those of
kernels/runtime_division.hpp at the profile's instructions_per_division (read off the SASS, not fitted),
and the left side is Nsight
Compute's smsp__inst_executed.sum. Only the copy kernel's counts are used (every size, dtype and block of the
given validation runs): instruction COUNTS of the simplest body, no time of any kernel. The other kernels'
counts then test the estimate.

    lab/calibration/fit_instruction_estimate.py MEMSIM_BINARY RUN.json [RUN.json ...]
"""
import json
import os
import shutil
import sys
import tempfile


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "studies", "instruction_diagnostic"))
from instruction_diagnostic import memsim_json  # noqa: E402  (the same memsim call for a run's config)


def estimate(binary, device_dir, cfg):
    env = dict(os.environ, MEMSIM_DEVICE_DIR=device_dir)
    return memsim_json(binary, cfg, env=env)["prediction"]["instructions"]


def profile_dir(tmp, name, per_warp, per_op, per_division):
    """A copy of the device profiles whose h100 estimate has the given constants."""
    d = os.path.join(tmp, name)
    shutil.copytree(os.path.join(HERE, "..", "..", "model", "devices"), d)
    prof = json.load(open(os.path.join(d, "h100.json")))
    prof["cost"]["instructions_per_warp"] = per_warp
    prof["cost"]["instructions_per_source_op"] = per_op
    if per_division is not None:
        prof["cost"]["instructions_per_division"] = per_division
    json.dump(prof, open(os.path.join(d, "h100.json"), "w"))
    return d


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, runs = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        # Profiles whose estimate is the operations themselves (1 per operation, nothing per warp or division),
        # and the operations plus the division sequences' instructions at the profile's cost (a profile
        # without a cost per operation would not estimate at all).
        ops_dir = profile_dir(tmp, "operations", 0, 1, [0, 0])
        div_dir = profile_dir(tmp, "divisions", 0, 1, None)
        points = []
        for path in runs:
            for rec in json.load(open(path))["records"]:
                cfg = rec["config"]
                measured = rec.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured")
                if measured is None:
                    continue
                warps = cfg["blocks"] * ((cfg["threads_per_block"] + 31) // 32)
                ops = estimate(binary, ops_dir, cfg)
                points.append((rec["id"], cfg["kernel"], warps, ops, estimate(binary, div_dir, cfg) - ops, measured))
    fit = [p for p in points if p[1] == "copy"]
    # Least squares for y - d = a w + b o (normal equations, 2x2; d: the division sequences, none in copy).
    sww = sum(w * w for _, _, w, o, d, y in fit)
    swo = sum(w * o for _, _, w, o, d, y in fit)
    soo = sum(o * o for _, _, w, o, d, y in fit)
    swy = sum(w * (y - d) for _, _, w, o, d, y in fit)
    soy = sum(o * (y - d) for _, _, w, o, d, y in fit)
    det = sww * soo - swo * swo
    a = (swy * soo - soy * swo) / det
    b = (soy * sww - swy * swo) / det
    print("fitted on %d copy configurations: instructions_per_warp %.2f, instructions_per_source_op %.4f" % (len(fit), a, b))
    print("\n| configuration | operations | division instructions | estimated | measured (ncu) | error |")
    print("|---|---|---|---|---|---|")
    errors = []
    for name, kernel, w, o, d, y in points:
        est = a * w + b * o + d
        errors.append(abs(est - y) / y)
        print("| %s | %.0f | %.0f | %.0f | %.0f | %+.1f%% |" % (name, o, d, est, y, 100 * (est / y - 1)))
    print("\nall %d configurations: mean absolute error %.1f%%, largest %.1f%%"
          % (len(points), 100 * sum(errors) / len(errors), 100 * max(errors)))


if __name__ == "__main__":
    main()
