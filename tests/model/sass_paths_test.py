#!/usr/bin/env python3
"""The paths scripts/sass_instruction_counts.py follows through a kernel's SASS, on small functions
written by hand in cuobjdump's format, their counts worked out by hand. Standard library only.

    tests/model/sass_paths_test.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import sass_instruction_counts as sic  # noqa: E402


def dump(name, lines):
    """cuobjdump -sass text of one function: (address, instruction) pairs."""
    out = ["\n\tcode for sm_90", "\t\tFunction : " + name, "\t.headerflags\t@\"EF_CUDA_SM90\""]
    for a, i in lines:
        out.append("        /*%04x*/                   %s ;                /* 0x000000000000000000000000 */" % (a, i))
    return "\n".join(out) + "\n"


# A copy-like body: prologue (3), the uniform edge test to the inner path at 0x80; the edge path wraps its load
# in a branch around it; the inner path stages through shared memory and leaves at a predicated EXIT before
# its last store.
PLAIN = [
    (0x00, "S2R R0, SR_TID.X"),
    (0x10, "ISETP.GT.AND P0, PT, R3, R8, PT"),
    (0x20, "@!P0 BRA P1, 0x80"),
    (0x30, "BSSY B0, 0x60"),
    (0x40, "@!P2 BRA 0x60"),
    (0x50, "LDG.E R5, desc[UR4][R2.64]"),
    (0x60, "BSYNC B0"),
    (0x70, "EXIT"),
    (0x80, "LDG.E R5, desc[UR4][R2.64]"),
    (0x90, "STS [R0], R5"),
    (0xa0, "BAR.SYNC.DEFER_BLOCKING 0x0"),
    (0xb0, "@!P3 LDS R7, [R0+0x20]"),
    (0xc0, "@P3 EXIT"),
    (0xd0, "STG.E desc[UR4][R4.64], R7"),
    (0xe0, "EXIT"),
    (0xf0, "BRA 0xf0"),
]

# diagonal's shape: a branch on the grid's shape before the edge test; the general side (0x20-0x40) divides,
# the square side (0x50) adds, both join at 0x60.
DIAGONAL = [
    (0x00, "ISETP.NE.AND P0, PT, R8, R9, PT"),
    (0x10, "@!P0 BRA 0x50"),
    (0x20, "I2F.RP R0, R5"),
    (0x30, "MUFU.RCP R0, R0"),
    (0x40, "BRA 0x60"),
    (0x50, "VIADD R0, R13, UR5"),
    (0x60, "@!P0 BRA P1, 0x90"),
    (0x70, "LDG.E R5, desc[UR4][R2.64]"),
    (0x80, "EXIT"),
    (0x90, "LDG.E R5, desc[UR4][R2.64]"),
    (0xa0, "STG.E desc[UR4][R4.64], R5"),
    (0xb0, "EXIT"),
]


# Loads and the waits for them along a path. A staged body: two 64-bit loads (R4-R5, R6-R7) issued together,
# an instruction reading neither (no wait), the first shared store reading R4-R5 (wait 1; R6-R7 is back with
# it), then a 128-bit load (R12-R15) whose third register an add reads (wait 2; its store then waits no
# more), a predicated load whose register a later load's address reads (a pointer chase: wait 3), and that
# load, never read before EXIT (a round of its own).
FLIGHT = [
    "LDG.E.64 R4, desc[UR4][R2.64]",
    "LDG.E.64 R6, desc[UR4][R2.64+0x100]",
    "IMAD.WIDE R8, R11, 0x8, R2",
    "STS.64 [R0], R4",
    "STS.64 [R0+0x200], R6",
    "LDG.E.128 R12, desc[UR4][R8.64]",
    "IADD3 R20, R14, 0x1, RZ",
    "STG.E.128 desc[UR4][R8.64], R12",
    "@P0 LDG.E R16, desc[UR4][R2.64]",
    "LDG.E R18, desc[UR4][R16.64]",
    "EXIT",
]


class Paths(unittest.TestCase):
    def counts(self, lines):
        name = "_Z16suite_kernel_anyIN6memsim5suite4CopyEfNS0_11StaticShapeILi32ELi8ELi32ELi32ELi0EiEEEv"
        funcs = sic.functions(dump(name, lines))
        return sic.counts(sic.find(funcs, "Copy", "f", 32, 8))

    def test_plain(self):
        c = self.counts(PLAIN)
        self.assertEqual(c["inner"], 3 + 7)  # 0x00-0x20, then 0x80-0xe0
        self.assertEqual(c["exit"], 3 + 5)  # ... leaving at 0xc0
        self.assertEqual(c["edge"], 8)  # 0x00-0x70, the branch around the load falling through
        self.assertEqual((c["square"], c["square_exit"], c["edge_square"]), (c["inner"], c["exit"], c["edge"]))
        self.assertEqual((c["loads"], c["load_waits"]), (1, 1))  # the inner path's LDG at 0x80, read by 0x90

    def test_load_waits(self):
        # 5 loads: {R4, R6} wait at the first STS; R12 at IADD3 (a source operand; its destination R20 is not
        # read); R16 at the next load's address; R18 never read: 4 rounds.
        self.assertEqual(sic.load_waits(FLIGHT), (5, 4))
        # A direct body (copy's): load, store of it, load, store: one load a wait.
        direct = ["LDG.E R17, desc[UR4][R10.64]", "SHF.L.U32 R19, R6, 0x3, RZ", "STG.E desc[UR4][R8.64], R17",
                  "LDG.E R21, desc[UR4][R2.64]", "STG.E desc[UR4][R4.64], R21", "EXIT"]
        self.assertEqual(sic.load_waits(direct), (2, 2))
        self.assertEqual(sic.load_waits(["S2R R0, SR_TID.X", "EXIT"]), (0, 0))

    def test_diagonal(self):
        c = self.counts(DIAGONAL)
        self.assertEqual(c["inner"], 5 + 1 + 3)  # 0x00-0x40, the edge test at 0x60, 0x90-0xb0
        self.assertEqual(c["square"], 2 + 1 + 1 + 3)  # 0x00-0x10, 0x50, 0x60, 0x90-0xb0
        self.assertEqual(c["edge"], 5 + 3)  # 0x00-0x40, 0x60-0x80
        self.assertEqual(c["edge_square"], 2 + 1 + 3)


if __name__ == "__main__":
    unittest.main()
