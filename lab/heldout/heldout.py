#!/usr/bin/env python3
"""The held-out sweep: block shapes, tiles and pads that no fit and no choice between model variants has seen.
The seed articles' staged and direct designs (naive, coalesced = pad 0, padded = pad 1, copy_shared) at eleven
blocks beyond the four the model was calibrated and judged at (32x8, 16x16, 8x32, 32x32), and at tiles of 16,
32 and 64, in f16, f32 and f64, at 8192^2 and 16384^2. Every configuration is compiled with its block, tile and
pad as compile-time constants, as people write a transpose.

    heldout.py --inc FILE        the GPU build's extra static shapes (cmake -DMEMSIM_EXTRA_STATIC_SHAPES=FILE)
    heldout.py --list FILE       one configuration a line (kernel dtype block tile), for memsim-code-counts
    heldout.py --commands DIR    the memsim-validate runs, one a line (their reports go to DIR)
    --set b .. --set zc          the second to twenty-ninth set (SHAPES_B .. SHAPES_ZC below)
"""
import argparse
import sys

KERNELS = [("naive", "Naive", False), ("coalesced", "Coalesced", True), ("padded", "Padded", True),
           ("copy_shared", "CopyShared", True)]  # name, struct, shared tile
PADS = {"naive": 0, "coalesced": 0, "padded": 1, "copy_shared": 0}  # each kernel's default (kernels/suite/)
DTYPES = [("f16", 2), ("f32", 4), ("f64", 8)]
# (block, tile): eleven blocks beyond 32x8, 16x16, 8x32 and 32x32, and those four at a tile other than their
# default; tiles of 16, 32 and 64 a side.
SHAPES = [((32, 4), (32, 32)), ((32, 16), (32, 32)), ((32, 2), (32, 32)), ((64, 4), (64, 64)), ((64, 8), (64, 64)),
          ((64, 16), (64, 64)), ((64, 2), (64, 64)), ((16, 8), (16, 16)), ((16, 4), (16, 16)), ((16, 32), (16, 32)),
          ((8, 16), (16, 16)), ((32, 8), (64, 64)), ((16, 16), (32, 32)), ((8, 32), (32, 32)), ((32, 32), (64, 64))]
MATRICES = ["8192x8192", "16384x16384"]
# Set b (2026-11-28), chosen after the estimate's training sweep and before any of it ran: blocks neither that
# sweep (lab/calibration/code_estimate/) nor set a compiled, four of them not powers of two, whose tiles leave
# 8192 in part tiles (edge blocks, each access tested), at 8192x8192 only.
SHAPES_B = [((4, 16), (16, 16)), ((4, 128), (32, 128)), ((24, 8), (48, 48)), ((32, 6), (32, 48)),
            ((48, 4), (48, 48)), ((16, 12), (32, 48)), ((32, 24), (96, 96))]
MATRICES_B = ["8192x8192"]
# Set c (2026-11-28), chosen after the L1 wavefront rule by banks (sim/global_sectors.hpp) and before any of it
# ran: blocks whose warps span two or three rows at offsets that differ by row (40, 12, 20, 56 and 24 wide; 96x2
# as a control whose warps stay in a row), none compiled by any sweep before, at 8192x8192 only.
SHAPES_C = [((40, 4), (40, 40)), ((12, 16), (48, 48)), ((20, 8), (40, 40)), ((56, 2), (56, 56)),
            ((24, 4), (24, 24)), ((96, 2), (96, 96))]
# Set d (2026-11-28), chosen after lines of mixed pieces were counted with their small pieces
# (sim/partial_lines.hpp) and before any of it ran, to judge that change where it was not found: blocks whose
# warps span rows, so that naive's f64 and f32 lines mix piece sizes, at widths no set has compiled (48, 28,
# 36, 12 with tiles 48, 56, 36, 24), at 8192x8192 only.
SHAPES_D = [((48, 2), (48, 48)), ((28, 4), (56, 56)), ((36, 4), (36, 36)), ((12, 8), (24, 24))]
# Set e (2026-11-28), chosen after memsim-split-lines (lab/studies/split_lines/) found that a sector split
# between two blocks costs by the lines holding one, not by the split sectors, and before any of it ran: tiles
# whose rows end mid-sector in f16 and f32 (20, 28, 44, 52 and 60 elements; f64 the control, whose rows end on
# sectors), blocks as wide as the tile and one half as wide (22x4 on 44), at widths no set has compiled, at
# 8192x8192 only.
SHAPES_E = [((20, 4), (20, 20)), ((28, 4), (28, 28)), ((44, 4), (44, 44)), ((22, 4), (44, 44)),
            ((52, 2), (52, 52)), ((60, 2), (60, 60))]
# Set f (2026-11-28), chosen after memsim-split-lines measured 2-byte lanes (lab/studies/split_lines/) and before
# any of it ran, to judge the split-line charge it suggests (split_line_share_rule.patch there) where nothing
# was tuned: tiles whose rows end mid-sector in f32 (36, 44, 52, 68 elements: in halves) or in f16 only (56),
# f64 the control, at blocks no set and no training sweep has compiled (36x2, 18x4, 26x4, 44x2, 14x8, 34x4),
# at 8192x8192 only.
SHAPES_F = [((36, 2), (36, 36)), ((18, 4), (36, 36)), ((26, 4), (52, 52)), ((44, 2), (44, 44)),
            ((14, 8), (56, 56)), ((34, 4), (68, 68))]
# Set g (2026-11-28), chosen to find a mechanism, not to judge a change: tiles twice or four times as wide as the
# block, at 2, 4 and 8 rows, blocks of whole warps and of a part warp. Set f's staged f64 kernels at 18x4,
# 26x4, 34x4 and 14x8 and set d's 28x4 on 56 run at 0.70-0.80 of cudaMemcpy with every sector whole (28x4 on 56),
# where 12x8 on 24, 20x8 on 40, 24x8 on 48 and 12x16 on 48 reach 0.95-0.98; which of the rows, the part warp or
# the width tells them apart? 8192x8192 only. A term found on it is judged on a later set, not on this one.
# (18x16 on 36, 14x16 on 56 and 18x8 on 36 were in the list as run and refused: their tiles are not whole
# multiples of the block's rows.)
SHAPES_G = [((16, 4), (32, 32)), ((20, 4), (40, 40)), ((24, 4), (48, 48)), ((36, 4), (72, 72)),
            ((28, 8), (56, 56)), ((20, 2), (40, 40))]
# Set h (2026-11-28), chosen after set g and before any of it ran, to part what set g's slow f64 tiles share:
# tiles wider than the block with 128-byte-aligned column pieces and many elements a thread (32x4 on 64, 16x2 on
# 32: 32 elements; 16x4 on 64: 64), pieces off the lines with few (20x10 on 40, 28x14 on 56: 8) and with 16
# (20x5 on 40, 24x6 on 48). If elements a thread set it, the first three and the last two run slow in f64; if
# aligned pieces exempt a block, only the last two. 8192x8192 only; like set g, a diagnostic.
SHAPES_H = [((32, 4), (64, 64)), ((16, 2), (32, 32)), ((16, 4), (64, 64)), ((20, 10), (40, 40)),
            ((28, 14), (56, 56)), ((20, 5), (40, 40)), ((24, 6), (48, 48))]
# Set i (2026-11-28), chosen after memsim-cut-lines-probe found that the L1 left beside the shared-memory
# carve-out bounds the loads in flight (lab/studies/cut_lines: 28 KiB of L1 where the resident tiles fill the
# 228 KiB carve-out) and its hold time was fitted there, and before any of it ran, to judge that term where
# nothing was fitted: blocks no set has compiled whose staged tiles fill the largest carve-out in f64 (24x2 on
# 48, 40x2 on 40, 8x8 on 32, 28x2 on 56; 16x8 on 64 in f32 and f64) and controls that leave 60 KiB or more
# (24x12 on 48; the f16 tiles, naive), at 8192x8192 only.
SHAPES_I = [((24, 2), (48, 48)), ((40, 2), (40, 40)), ((16, 8), (64, 64)), ((8, 8), (32, 32)),
            ((28, 2), (56, 56)), ((24, 12), (48, 48))]
# Set j (2026-11-28), chosen after memsim began reading each configuration's registers off its compiled code
# (docs/model.md, "Registers, and so the occupancy") and before any of it ran, to judge memsim where those
# registers differ most from the profile's count: blocks and tiles no set has compiled whose threads move many
# elements (32x1 on 32: `copy_shared` 80 registers; 64x1 on 64: 167; 32x4 on 96: 40-48) beside ones where they
# bind less (8x4 on 32, 16x16 on 64, 32x8 on 128: 32-40), at 8192x8192 only.
SHAPES_J = [((32, 1), (32, 32)), ((64, 1), (64, 64)), ((8, 4), (32, 32)), ((16, 16), (64, 64)),
            ((32, 8), (128, 128)), ((32, 4), (96, 96))]
# Set k (2026-11-28), chosen after the read-back began counting a line by the warps that write it as a share of 8
# (not their share of the block: memsim-partial-lines, blocks of 2 and 4 writers) and before any of it ran, to
# judge that change where nothing chose it: staged and naive kernels at blocks no set has compiled of 2 to 16
# warps whose lines several warps write (12x4 on 24, 24x3 on 48, 36x2 on 72, 20x6 on 60, 48x8 on 48, 32x16 on
# 64), at 8192x8192 only.
SHAPES_K = [((12, 4), (24, 24)), ((24, 3), (48, 48)), ((36, 2), (72, 72)), ((20, 6), (60, 60)),
            ((48, 8), (48, 48)), ((32, 16), (64, 64))]
# Set l (2026-11-29), chosen after the h200 profile's small-L1 caveat (cost.small_l1: a staged launch that leaves
# 28 KiB of L1 or less has its time likely low; from memsim-cut-lines-probe) and before any of it ran, to judge it
# where nothing chose it: blocks and tiles no set and no probe has run, whose staged f32 or f64 tiles fill the
# largest carve-out (32x12 on 96 in f64, 16x10 and 40x5 on 80, 12x12 on 48 in f64) beside ones that leave 60 KiB
# or more (8x24 on 48, 56x4 on 56, the f16 tiles, naive), at 8192x8192 only.
SHAPES_L = [((32, 12), (96, 96)), ((16, 10), (80, 80)), ((40, 5), (80, 80)), ((8, 24), (48, 48)),
            ((12, 12), (48, 48)), ((56, 4), (56, 56))]
# Set m (2026-11-29), chosen before any of it ran: the shapes a tuner tries first that no set has compiled
# (16x16 on 16, 32x32 on 32: one element a thread; 16x8, 16x32 and 8x16 on 32; 32x2 on 64), at 8192x8192 and
# 16384x16384. 32x32 on 32 is in the shipped SASS table (model/sass_counts.inc) but was never timed for these
# kernels.
SHAPES_M = [((16, 16), (16, 16)), ((32, 32), (32, 32)), ((16, 8), (32, 32)), ((16, 32), (32, 32)),
            ((8, 16), (32, 32)), ((32, 2), (64, 64))]
# Set n (2026-11-29), chosen after set m and before any of it ran, to judge a rule found on set m: a block holds
# its slot while the shared-memory pipe serves its own wavefronts (model/cost.cpp, the block term), which moves
# blocks of many warps at few blocks an SM most: 512- to 1024-thread blocks no set has compiled (16x64 and 16x32
# on 64, 48x16 and 16x48 on 48, 32x32 on 32x64, 64x8 on 64x32), at 8192x8192 only.
SHAPES_N = [((16, 64), (64, 64)), ((16, 32), (64, 64)), ((48, 16), (48, 48)), ((16, 48), (48, 48)),
            ((32, 32), (32, 64)), ((64, 8), (64, 32))]
# Set o (2026-11-29), chosen before any of it ran, to judge a count the read-back had wrong on sets a, k and n:
# naive's lines closed in the round they open, in a block that writes a new set of them each step of its tile,
# counted as if all its steps' lines were open at once (so many rounds, many lines, too much read back). Blocks of
# 8 to 32 warps whose tile is several steps of them, none compiled by any set (32x16 and 32x32 on 96, 16x16 and
# 24x16 on 48, 8x64 on 64, 64x16 on 128), at 8192x8192 only; the staged kernels, one round a tile, are the control.
SHAPES_O = [((32, 16), (96, 96)), ((32, 32), (96, 96)), ((16, 16), (48, 48)), ((24, 16), (48, 48)),
            ((8, 64), (64, 64)), ((64, 16), (128, 128))]
# Set p (2026-11-29), chosen after set o refuted counting one step's lines open at once, and before any run of
# memsim-step-lines (lab/calibration/step_lines.cu, which measures how many steps a block holds open) or any rule
# from it: tiles of 16 to 36 steps at blocks a tuner tries, none compiled by any set (32x16, 32x32 and 64x8 on 128,
# 32x8 and 16x32 on 96, 16x16 on 80), at 8192x8192 only.
SHAPES_P = [((32, 16), (128, 128)), ((32, 32), (128, 128)), ((64, 8), (128, 128)), ((32, 8), (96, 96)),
            ((16, 32), (96, 96)), ((16, 16), (80, 80))]
# Set q (2026-11-29), chosen before any of it ran, to judge a count the read-back had wrong on sets d, e, f and k:
# a naive line whose pieces come over two rounds or more and that holds a sector left partly written for the
# block a grid row on (a tile whose rows end mid-sector: f16 and f32 tiles that are no multiple of 16 and 8
# elements) was counted as closing in its round, so its read-back came out 0.05-0.4 of the output where Nsight
# Compute measured 0.5-0.96. Blocks and tiles no set and no training sweep has compiled, whose f16 and f32 tile
# rows end mid-sector (14x4 on 28, 12x6 on 36, 22x2 on 44, 52x4 on 52, 10x10 on 20, 30x6 on 60), at 8192x8192
# only; f64 (rows ending on sectors) and the staged kernels (one round a tile) are the control.
SHAPES_Q = [((14, 4), (28, 28)), ((12, 6), (36, 36)), ((22, 2), (44, 44)), ((52, 4), (52, 52)),
            ((10, 10), (20, 20)), ((30, 6), (60, 60))]
# Set r (2026-11-29), chosen before any of it ran, to judge a cost fitted on memsim-held-open's runs alone: a
# sector a block writes in pieces from two warps or more (cost.sector_from_warps_ps), beside the read-back
# costs fitted again with it. naive's held-out error had followed the bytes a sector gets in one piece (16-byte
# pieces 18% fast on average on the H200, 2-byte ones 3% slow), as memsim-held-open's runs did. Blocks no set and
# no training sweep has compiled, 8 and 16 wide (naive's pieces: 16 and 8 bytes at f32, 8 and 4 at f16, 32 and
# 16 at f64), at 8192x8192 only; the staged kernels (pieces from several warps at some f16 shapes) beside them.
SHAPES_R = [((8, 20), (40, 40)), ((8, 10), (40, 40)), ((8, 28), (56, 56)), ((16, 20), (80, 80)),
            ((16, 24), (48, 48)), ((16, 14), (112, 112))]
# Set s (2026-11-29), chosen before any of it ran, to judge a cost fitted on memsim-held-open's and
# memsim-step-lines' runs: a sector of a line the block writes whole in one round (a naive block as tall as a
# line: 32 rows at f32, 16 at f64, 64 at f16) priced apart from one whose line stays open over rounds or waits
# for another block (cost.sector_from_warps_one_round_ps beside sector_from_warps_ps). naive's blocks as tall as
# a line had run 20-33% faster than predicted on the H100 (set a), as memsim-step-lines' runs did on the H200.
# Blocks no set and no training sweep has compiled: 32 rows (12x32 and 24x32 on 96: whole lines at f32 and f64),
# 16 rows (40x16 and 20x16 on 80: at f64 only), 40 and 48 rows (16x40 on 80, 8x48 on 96: some lines whole, some
# not), at 8192x8192 only; the staged kernels (one round a tile) beside them.
SHAPES_S = [((12, 32), (96, 96)), ((24, 32), (96, 96)), ((40, 16), (80, 80)), ((20, 16), (80, 80)),
            ((16, 40), (80, 80)), ((8, 48), (96, 96))]
# Set t (2026-11-29), chosen before any of it ran, to judge memsim as it stands (no change is tied to it) on an
# axis no set had varied: the matrix. 4096x4096, whose input and output (32 to 128 MiB) the 50-60 MB L2 holds
# in large part, and 16384x4096, wide and not square, at six of set a's blocks and tiles (already compiled by
# set a, never run at these matrices), the four kernels, three dtypes: 144 configurations.
SHAPES_T = [((32, 8), (64, 64)), ((16, 16), (32, 32)), ((8, 32), (32, 32)), ((64, 4), (64, 64)),
            ((32, 4), (32, 32)), ((16, 8), (16, 16))]
MATRICES_T = ["4096x4096", "16384x4096"]
# Set u (2026-11-29), chosen after set t ran and before any of set u ran, on the same six shapes: matrices no tile
# divides and whose rows are no whole number of lines, as users' sizes are: 5000x3000 and 3000x5000 (rows of 10,000
# and 6,000 bytes at f16: the rows' starts move along the lines and sectors; every grid ends in part tiles).
MATRICES_U = ["5000x3000", "3000x5000"]
# Set v (2026-11-29), chosen after set u ran, to find a mechanism, not to judge a change (a term found on it is judged
# on a later set): set u's staged kernels at tile 64 ran 8-21% slower than predicted at 5000x3000, where no tile
# divides the matrix and no row is a whole number of lines, and were right at 4096x4096 (set t). 5120x3072 has
# neither (every tile whole, rows of whole lines), 5024x3008 part tiles only (rows of 5,024 elements: whole lines
# at f32 and f64, 64-byte halves at f16). Two tile-64 and two tile-32 shapes of set t. 5024x3008 first: Nsight
# Compute counts a set at its first matrix (run_heldout.sh ncu), and it counted set v there.
SHAPES_V = [((32, 8), (64, 64)), ((64, 4), (64, 64)), ((16, 16), (32, 32)), ((32, 4), (32, 32))]
MATRICES_V = ["5024x3008", "5120x3072"]
# Set w (2026-12-06), chosen before any of it ran and before the term it judges was fitted: naive's f32 stores at
# 8-wide blocks write 16-byte pieces from 4 lanes of 4 bytes (two warps a sector), which both cards ran 25-33%
# slower than predicted in set a (8x16 on 16, 8x32 on 32), s (8x48 on 96) and u, as memsim-step-lines' runs of
# such pieces are at 64 warps an SM. Eight 8-wide (block, tile) pairs no set and no training sweep has compiled,
# at 32 to 64 warps an SM (8x4 on 24: one warp a block, 32 an SM; 8x6 on 48: a warp and a half), f16 (8-byte
# pieces) and f64 (32-byte pieces) the controls, the staged kernels beside them, at 8192x8192 only. Its eighth
# pair was 8x20 on 20 until its first run refused it (a 20-wide tile is no multiple of an 8-wide block); 8x18 on
# 72 replaced it before any of the set's results had been read.
SHAPES_W = [((8, 12), (24, 24)), ((8, 40), (40, 40)), ((8, 16), (64, 64)), ((8, 56), (56, 56)),
            ((8, 6), (48, 48)), ((8, 24), (24, 24)), ((8, 4), (24, 24)), ((8, 18), (72, 72))]
# Set x (2026-12-06), chosen before any of it ran, to judge memsim as it stands (no change is tied to it) where no
# set has run: a matrix of 12288x12288 (rows of 24 to 96 KB, grids of 96 to 384 blocks a side, 0.75 to 2.25 GiB
# a side, three times the L2 and more), at the shapes a tuner tries first: the seed articles' 32x8 on 32, blocks
# 4 and 2 rows tall on 64, square 16x16 on 64, 16x8 and 8x16 on 32, 128x4 on 128 (a pair no set has compiled).
# Run with memsim-validate compiling each shape when it starts (docs/validation.md), no configure-time shapes.
SHAPES_X = [((32, 8), (32, 32)), ((64, 4), (64, 64)), ((32, 4), (64, 64)), ((16, 16), (64, 64)),
            ((16, 8), (32, 32)), ((8, 16), (32, 32)), ((64, 2), (64, 64)), ((128, 4), (128, 128))]
MATRICES_X = ["12288x12288"]
# Set y (2026-12-06, 20:55 UTC), chosen and committed before any of it ran and before any change it may judge: the
# read-back of naive's part-written lines is short by about 0.11 of the output on every set and card, and the next
# count of it is to be fitted on microbenchmarks alone, then judged here. Eight square (block, tile) pairs of a
# tuner's grid (blocks 8 to 128 wide, 1 to 8 rows, tiles 64 and 128) that no set and no training sweep of the
# compiled-code estimate has compiled: 1- to 8-warp blocks, 8-, 16-, 32-, 64- and 128-wide, whose naive stores
# write 2- to 8-byte pieces of a sector from 1 to 8 warps over 8 to 128 rounds; the staged kernels beside them, so
# that a count which moves them is seen. 8192x8192 only, as sets b to s.
SHAPES_Y = [((8, 4), (64, 64)), ((16, 2), (64, 64)), ((32, 1), (64, 64)), ((8, 8), (128, 128)),
            ((16, 8), (128, 128)), ((32, 4), (128, 128)), ((64, 2), (128, 128)), ((128, 1), (128, 128))]
# Set z (2026-12-06, 23:00 UTC), chosen and committed before any of it ran and before the microbenchmark whose cost
# it may judge (memsim-held-open's whole-sector runs, lab/calibration/held_open.cu) had run: naive writing whole
# 32-byte sectors over several steps into many output rows a block (f64 at 8-wide blocks, f32 at 4-wide), which
# set y and validate/results/naive_rows found running up to twice memsim's DRAM-bound time; beside them blocks that
# close each line in its step (4x32 and 8x32 on 96), half-sector and 8-byte pieces at 128 rows a block (16x4,
# 32x2 on 128), and the staged kernels. Eight (block, tile) pairs no set, study and training sweep of the
# compiled-code estimate has compiled, 1- to 8-warp blocks, at 8192x8192 only.
SHAPES_Z = [((8, 16), (128, 128)), ((8, 8), (96, 96)), ((4, 16), (64, 64)), ((4, 32), (96, 96)),
            ((8, 32), (96, 96)), ((16, 4), (128, 128)), ((8, 4), (48, 48)), ((32, 2), (128, 128))]
# Set za (2026-12-07, 05:40 UTC), chosen and committed before any of it ran, after the read-back past the L2's lines
# (cost.read_back.held_open.past_l2_share) was fitted on memsim-held-open's runs and judged on set z: naive blocks of
# one or two warps on tiles of 96 and 128, which hold 3,072 to 4,096 lines an SM open (32 blocks an SM), with 2- to
# 16-byte pieces from one or two warps a sector; beside them the staged kernels. Eight (block, tile) pairs no set
# has run, at 8192x8192 only.
SHAPES_ZA = [((32, 1), (128, 128)), ((16, 2), (128, 128)), ((64, 1), (128, 128)), ((8, 4), (128, 128)),
             ((4, 16), (128, 128)), ((4, 8), (128, 128)), ((32, 2), (96, 96)), ((16, 4), (96, 96))]
# Set zb (2026-12-07, 10:45 UTC), chosen and committed before any of it ran and before any change it may judge:
# the staged kernels' long walks, where a lane loads 256 bytes or more before its first store and the compiled-code
# estimate's bound of loads in flight (64 bytes a lane) falls short of what ptxas keeps in flight (set za's worst
# rows). A tuner's blocks of 1 to 8 warps on square tiles of 96 and 128 no set has run and on rectangular tiles
# (128x64, 64x128) no set or training sweep has compiled; naive beside them. 8192x8192 only.
SHAPES_ZB = [((64, 4), (128, 128)), ((16, 16), (96, 96)), ((16, 8), (96, 96)), ((32, 1), (96, 96)),
             ((32, 4), (128, 64)), ((32, 4), (64, 128)), ((64, 2), (64, 128)), ((16, 8), (128, 64))]
# Set zc (2026-12-08, 02:13 UTC), chosen and committed before any of it ran, after a store request's sectors were
# split into those it writes whole and those it writes in part (sim/global_sectors.hpp; before, a store site with
# any partial sector had every sector priced as a partial store), and before any GPU judged that change: blocks
# whose warps cross tile rows on tiles whose rows end on a sector but off a line in f64 (76, 84, 92, 100, 88, 52,
# 40 elements) and mid-sector in f32 or f16 at most of them; eight (block, tile) pairs no set has run, at
# 8192x8192 only.
SHAPES_ZC = [((38, 4), (76, 76)), ((42, 2), (84, 84)), ((46, 4), (92, 92)), ((50, 2), (100, 100)),
             ((44, 4), (88, 88)), ((22, 8), (88, 88)), ((26, 2), (52, 52)), ((10, 8), (40, 40))]
SETS = {"a": (SHAPES, MATRICES, "heldout"), "b": (SHAPES_B, MATRICES_B, "heldoutb"),
        "c": (SHAPES_C, MATRICES_B, "heldoutc"), "d": (SHAPES_D, MATRICES_B, "heldoutd"),
        "e": (SHAPES_E, MATRICES_B, "heldoute"), "f": (SHAPES_F, MATRICES_B, "heldoutf"),
        "g": (SHAPES_G, MATRICES_B, "heldoutg"),
        "h": (SHAPES_H, MATRICES_B, "heldouth"), "i": (SHAPES_I, MATRICES_B, "heldouti"),
        "j": (SHAPES_J, MATRICES_B, "heldoutj"), "k": (SHAPES_K, MATRICES_B, "heldoutk"),
        "l": (SHAPES_L, MATRICES_B, "heldoutl"), "m": (SHAPES_M, MATRICES, "heldoutm"),
        "n": (SHAPES_N, MATRICES_B, "heldoutn"), "o": (SHAPES_O, MATRICES_B, "heldouto"),
        "p": (SHAPES_P, MATRICES_B, "heldoutp"), "q": (SHAPES_Q, MATRICES_B, "heldoutq"),
        "r": (SHAPES_R, MATRICES_B, "heldoutr"), "s": (SHAPES_S, MATRICES_B, "heldouts"),
        "t": (SHAPES_T, MATRICES_T, "heldoutt"), "u": (SHAPES_T, MATRICES_U, "heldoutu"),
        "v": (SHAPES_V, MATRICES_V, "heldoutv"), "w": (SHAPES_W, MATRICES_B, "heldoutw"),
        "x": (SHAPES_X, MATRICES_X, "heldoutx"), "y": (SHAPES_Y, MATRICES_B, "heldouty"),
        "z": (SHAPES_Z, MATRICES_B, "heldoutz"), "za": (SHAPES_ZA, MATRICES_B, "heldoutza"),
        "zb": (SHAPES_ZB, MATRICES_B, "heldoutzb"), "zc": (SHAPES_ZC, MATRICES_B, "heldoutzc")}


def configs(shapes):
    for (bx, by), (tx, ty) in shapes:
        for dtype, size in DTYPES:
            for name, struct, shared in KERNELS:
                smem_row = tx + PADS[name] if shared else 0
                yield name, struct, dtype, size, (bx, by), (tx, ty), smem_row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inc")
    ap.add_argument("--list")
    ap.add_argument("--commands")
    ap.add_argument("--set", choices=sorted(SETS), default="a")
    a = ap.parse_args()
    shapes, matrices, prefix = SETS[a.set]
    if a.inc:
        with open(a.inc, "w") as f:
            f.write("// Generated by lab/heldout/heldout.py%s: the held-out sweep's static shapes.\n"
                    % ("" if a.set == "a" else " --set " + a.set) +
                    "#define MEMSIM_EXTRA_STATIC_SHAPES(X) \\\n")
            for name, struct, dtype, size, (bx, by), (tx, ty), sr in configs(shapes):
                f.write("  X(%s, %d, %d, %d, %d, %d, %d) \\\n" % (struct, size, bx, by, tx, ty, sr))
            f.write("\n")
    if a.list:
        with open(a.list, "w") as f:
            for name, _, dtype, _, (bx, by), (tx, ty), _ in configs(shapes):
                for m in matrices:
                    f.write("%s %s %dx%d %dx%d %s\n" % (name, dtype, bx, by, tx, ty, m))
    if a.commands:
        sys.stdout.flush()
        for (bx, by), (tx, ty) in shapes:
            kernels = ",".join(k for k, _, _ in KERNELS)
            print("--kernels %s --blocks %dx%d --tile %dx%d --dtypes f16,f32,f64 --matrices %s --name %s_%dx%d_t%dx%d"
                  % (kernels, bx, by, tx, ty, ",".join(matrices), prefix, bx, by, tx, ty))
    return 0


if __name__ == "__main__":
    sys.exit(main())
