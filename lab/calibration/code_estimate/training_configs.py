#!/usr/bin/env python3
"""Writes the compiled-code estimate's training sweep (training_configs.txt): configurations beyond the shipped
table that the estimate's rule is fitted on, across the space a user tunes over, and none of the held-out sweep's.

Every suite kernel in f16, f32 and f64 at 8192x8192, at the table's four blocks (32x8, 16x16, 8x32, 32x32) and
17 more of 1 to 64 rows and 4 to 256 columns, at tiles of 8 to 256 a side, square or twice as wide as high or as
high as wide, where a thread covers at most 64 elements, and at the new blocks' default tiles (as `memsim
--block all` takes them, however many elements). Then walks the block does not divide in several steps, whose
every step nvcc tests with a predicate of its own (added 2026-11-28: the estimate, fitted without them, put
set b's 32x6 drains a third under their compiled count): 20 blocks of 3, 5, 6, 12 or 24 rows or columns (96x1
to 4x48) at 8 tiles each, multiples of the block of 8 to 256 a side within 2:1, and the power-of-two blocks
above at 4 tiles each with a side of 24, 40, 48, 80, 96, 112, 160, 192 or 224. Then long walks (added
2026-12-07): the staged kernels at 24 (block, tile) pairs whose threads walk 65 to 1024 elements. The held-out sweeps
(lab/heldout/) are kept out: none of the blocks of the sets chosen before the sweep (set a's eleven, sets b to e
all of theirs), and none of any held-out list's (block, tile) pairs, for any kernel (fit_code_estimate.py leaves out
any training configuration at a held-out list's pair too; since 2026-12-05 both cover the sets chosen after the
sweep, whose pairs it had held: 168 configurations of sets h, i, j, m, n, o and p). Configurations a kernel or
the device does not allow stay in the list: memsim-code-counts records them as refused.

The check sweep (--check, check_configs.txt) is the same at tiles four times as wide as high or as high as wide:
configurations in neither the fit nor the held-out sweep, that judge how the rule carries to tile shapes it was
not fitted on.

    training_configs.py [--out lab/calibration/code_estimate/training_configs.txt]
                        [--check lab/calibration/code_estimate/check_configs.txt]
"""
import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
HELDOUT = os.path.join(ROOT, "lab", "heldout", "heldout_configs.txt")
HELDOUT_LISTS = os.path.join(ROOT, "lab", "heldout", "heldout_*configs.txt")

KERNELS = ["copy", "copy_shared", "naive", "naive_read", "coalesced", "padded", "diagonal", "coarse", "fine",
           "swizzle", "vec4", "vec4_shared", "reg4x4", "best"]
DTYPES = ["f16", "f32", "f64"]
TABLE_BLOCKS = [(32, 8), (16, 16), (8, 32), (32, 32)]
NEW_BLOCKS = [(256, 1), (128, 1), (64, 1), (32, 1), (16, 1), (256, 2), (128, 2), (16, 2), (256, 4), (128, 4),
              (8, 4), (128, 8), (8, 8), (4, 32), (8, 64), (4, 64), (16, 64)]
SIDES = [8, 16, 32, 64, 128, 256]
# Blocks whose tiles' transposed walks the block need not divide, none a held-out sweep's.
UNEVEN_BLOCKS = [(32, 3), (32, 5), (32, 12), (64, 3), (64, 6), (16, 6), (16, 3), (8, 12), (8, 6), (24, 2), (24, 16),
                 (40, 2), (40, 8), (12, 4), (12, 32), (96, 1), (48, 8), (8, 24), (4, 24), (4, 48)]
UNEVEN_TILES_A_BLOCK = 8
UNEVEN_SIDES = [24, 40, 48, 80, 96, 112, 160, 192, 224]  # for the power-of-two blocks
UNEVEN_SIDE_TILES_A_BLOCK = 4
MATRIX = "8192x8192"
MAX_ELEMENTS_PER_THREAD = 64


def heldout(path=HELDOUT):
    """A held-out list's (kernel, dtype, block, tile) keys, its blocks and its (block, tile) pairs."""
    keys, blocks, pairs = set(), set(), set()
    for line in open(path):
        f = line.split()
        if len(f) >= 4:
            keys.add(tuple(f[:4]))
            blocks.add(f[2])
            pairs.add((f[2], f[3]))
    return keys, blocks, pairs


# The sets chosen before the training sweep (a to e), whose blocks it leaves out whole.
EARLY_SETS = ("heldout_configs.txt", "heldout_b_configs.txt", "heldout_c_configs.txt", "heldout_d_configs.txt",
              "heldout_e_configs.txt")


def early_heldout_blocks():
    """The blocks of sets a to e: none of them is in the sweep (the table's four apart)."""
    return set().union(*(heldout(os.path.join(ROOT, "lab", "heldout", name))[1] for name in EARLY_SETS))


def all_heldout_pairs():
    """Every held-out list's (block, tile) pairs, sets chosen after the sweep too (f on, 2026-11-28 and after, took
    some of its pairs, such as j's 16x16 on 64): none of them is in the sweep, for any kernel or dtype."""
    return set().union(*(heldout(path)[2] for path in glob.glob(HELDOUT_LISTS)))


def evenly(items, n):
    """n of the items, evenly spaced from the first to the last (all of them if there are no more than n)."""
    if len(items) <= n:
        return items
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def uneven_tiles(bx, by, sides=None):
    """Tiles a multiple of the block, 8 to 256 a side, the long side at most twice the short, at most
    MAX_ELEMENTS_PER_THREAD elements a thread; with `sides`, those with a side among them."""
    out = []
    for tx in range(bx, 257, bx):
        for ty in range(by, 257, by):
            if min(tx, ty) < 8 or max(tx, ty) > 2 * min(tx, ty) or tx * ty > MAX_ELEMENTS_PER_THREAD * bx * by:
                continue
            if sides is not None and tx not in sides and ty not in sides:
                continue
            out.append((tx, ty))
    return out


def uneven_configs():
    """The walks the block does not divide in several steps (see the module's text)."""
    held_blocks = early_heldout_blocks()
    table = {"%dx%d" % b for b in TABLE_BLOCKS}
    held_pairs = all_heldout_pairs()
    pairs = []
    for bx, by in UNEVEN_BLOCKS:
        assert "%dx%d" % (bx, by) not in held_blocks, (bx, by)
        pairs += [((bx, by), t) for t in evenly(uneven_tiles(bx, by), UNEVEN_TILES_A_BLOCK)]
    for bx, by in TABLE_BLOCKS + NEW_BLOCKS:
        pairs += [((bx, by), t) for t in evenly(uneven_tiles(bx, by, UNEVEN_SIDES), UNEVEN_SIDE_TILES_A_BLOCK)]
    for kernel in KERNELS:
        for dtype in DTYPES:
            for (bx, by), (tx, ty) in pairs:
                block, tile = "%dx%d" % (bx, by), "%dx%d" % (tx, ty)
                assert block in table or block not in held_blocks, block
                if (block, tile) not in held_pairs:
                    yield kernel, dtype, block, tile


# Long walks (added 2026-12-07): the sweep above stops at 64 elements a thread, yet a tuner's 1- to 4-warp blocks
# on 96- to 256-wide tiles walk 72 to 1024 (sets za and zb: ptxas keeps more of such a walk's loads in flight
# than any rule fitted without them). The staged kernels at the power-of-two blocks above, on tiles of 96 to 256 a
# side (square, or twice as wide as high or as high as wide) that give a thread 65 to 1024 elements: 24 (block,
# tile) pairs evenly over that list, none a held-out list's.
LONG_WALK_KERNELS = ["copy_shared", "coalesced", "padded", "diagonal"]
LONG_WALK_SIDES = [96, 128, 192, 256]
LONG_WALK_PAIRS = 24
MAX_LONG_WALK_ELEMENTS = 1024


def long_walk_configs():
    held_pairs = all_heldout_pairs()
    pairs = []
    for bx, by in TABLE_BLOCKS + NEW_BLOCKS:
        for side in LONG_WALK_SIDES:
            for tx, ty in ((side, side), (side, side // 2), (side // 2, side)):
                elements = tx * ty // (bx * by)
                block, tile = "%dx%d" % (bx, by), "%dx%d" % (tx, ty)
                if tx % bx or ty % by or not MAX_ELEMENTS_PER_THREAD < elements <= MAX_LONG_WALK_ELEMENTS:
                    continue
                if (block, tile) not in held_pairs:
                    pairs.append((block, tile))
    for kernel in LONG_WALK_KERNELS:
        for dtype in DTYPES:
            for block, tile in evenly(pairs, LONG_WALK_PAIRS):
                yield kernel, dtype, block, tile


def configs(ratios=(1, 2)):
    """The sweep at tiles whose long side is one of `ratios` times the short one."""
    held_blocks, held_pairs = early_heldout_blocks(), all_heldout_pairs()
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
        if path == a.out:
            rows += list(uneven_configs()) + list(long_walk_configs())
        with open(path, "w") as f:
            for r in rows:
                f.write("%s %s %s %s %s\n" % (*r, MATRIX))
        sys.stderr.write("%d configurations to %s\n" % (len(rows), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
