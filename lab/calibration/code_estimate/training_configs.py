#!/usr/bin/env python3
"""Writes the compiled-code estimate's training sweep (training_configs.txt): configurations beyond the shipped
table that the estimate's rule is fitted on, across the space a user tunes over, and none of the held-out sweep's.

Every suite kernel in f16, f32 and f64 at 8192x8192, at the table's four blocks (32x8, 16x16, 8x32, 32x32) and
17 more of 1 to 64 rows and 4 to 256 columns, at tiles of 8 to 256 a side, square or twice as wide as high or as
high as wide, where a thread covers at most 64 elements, and at the new blocks' default tiles (as `memsim
--block all` takes them, however many elements). The held-out sweep (lab/heldout/) is kept out whole: none of
its eleven blocks, and none of its (block, tile) pairs at the table's blocks, for any kernel
(fit_code_estimate.py refuses a training configuration the held-out list holds). Configurations a kernel or
the device does not allow stay in the list: memsim-code-counts records them as refused.

The check sweep (--check, check_configs.txt) is the same at tiles four times as wide as high or as high as wide:
configurations in neither the fit nor the held-out sweep, that judge how the rule carries to tile shapes it was
not fitted on.

    training_configs.py [--out lab/calibration/code_estimate/training_configs.txt]
                        [--check lab/calibration/code_estimate/check_configs.txt]
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
HELDOUT = os.path.join(ROOT, "lab", "heldout", "heldout_configs.txt")

KERNELS = ["copy", "copy_shared", "naive", "naive_read", "coalesced", "padded", "diagonal", "coarse", "fine",
           "swizzle", "vec4", "vec4_shared", "reg4x4", "best"]
DTYPES = ["f16", "f32", "f64"]
TABLE_BLOCKS = [(32, 8), (16, 16), (8, 32), (32, 32)]
NEW_BLOCKS = [(256, 1), (128, 1), (64, 1), (32, 1), (16, 1), (256, 2), (128, 2), (16, 2), (256, 4), (128, 4),
              (8, 4), (128, 8), (8, 8), (4, 32), (8, 64), (4, 64), (16, 64)]
SIDES = [8, 16, 32, 64, 128, 256]
MATRIX = "8192x8192"
MAX_ELEMENTS_PER_THREAD = 64


def heldout():
    keys, blocks, pairs = set(), set(), set()
    for line in open(HELDOUT):
        f = line.split()
        if len(f) >= 4:
            keys.add(tuple(f[:4]))
            blocks.add(f[2])
            pairs.add((f[2], f[3]))
    return keys, blocks, pairs


def configs(ratios=(1, 2)):
    """The sweep at tiles whose long side is one of `ratios` times the short one."""
    _, held_blocks, held_pairs = heldout()
    table = {"%dx%d" % b for b in TABLE_BLOCKS}
    for kernel in KERNELS:
        for dtype in DTYPES:
            for bx, by in TABLE_BLOCKS + NEW_BLOCKS:
                block = "%dx%d" % (bx, by)
                assert block in table or block not in held_blocks, block
                if block not in table and 1 in ratios:
                    yield kernel, dtype, block, "-"
                for tx in SIDES:
                    for ty in SIDES:
                        if max(tx, ty) not in [r * min(tx, ty) for r in ratios] or tx % bx or ty % by:
                            continue
                        if tx * ty > MAX_ELEMENTS_PER_THREAD * bx * by:
                            continue
                        tile = "%dx%d" % (tx, ty)
                        if (block, tile) not in held_pairs:
                            yield kernel, dtype, block, tile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "training_configs.txt"))
    ap.add_argument("--check", default=os.path.join(HERE, "check_configs.txt"))
    a = ap.parse_args()
    for path, ratios in ((a.out, (1, 2)), (a.check, (4,))):
        rows = list(configs(ratios))
        with open(path, "w") as f:
            for r in rows:
                f.write("%s %s %s %s %s\n" % (*r, MATRIX))
        sys.stderr.write("%d configurations to %s\n" % (len(rows), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
