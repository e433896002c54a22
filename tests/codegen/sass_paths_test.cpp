// The paths memsim follows through a compiled kernel's SASS (codegen/sass_paths.hpp), on small functions
// written by hand in cuobjdump's format, their counts worked out by hand. The same functions test the lab's
// Python reader (tests/model/sass_paths_test.py), so the two readers agree.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/sass_paths.hpp"

namespace memsim {
namespace {

using Lines = std::vector<std::pair<unsigned, std::string>>;

std::string dump(const std::string& name, const Lines& lines) {
  std::string out = "\n\tcode for sm_90\n\t\tFunction : " + name + "\n\t.headerflags\t@\"EF_CUDA_SM90\"\n";
  for (const auto& [a, i] : lines) {
    char addr[16];
    std::snprintf(addr, sizeof addr, "%04x", a);
    out += std::string("        /*") + addr + "*/                   " + i +
           " ;                /* 0x000000000000000000000000 */\n";
  }
  return out;
}

SassPaths paths(const Lines& lines) {
  const auto f = sass_functions(dump("memsim_code_0", lines));
  EXPECT_EQ(f.size(), 1u);
  return count_sass_paths(f.at("memsim_code_0"));
}

// A copy-like body: prologue (3), the uniform edge test to the inner path at 0x80; the edge path wraps its
// load in a branch around it; the inner path stages through shared memory and leaves at a predicated EXIT
// before its last store.
const Lines kPlain = {
    {0x00, "S2R R0, SR_TID.X"},           {0x10, "ISETP.GT.AND P0, PT, R3, R8, PT"},
    {0x20, "@!P0 BRA P1, 0x80"},          {0x30, "BSSY B0, 0x60"},
    {0x40, "@!P2 BRA 0x60"},              {0x50, "LDG.E R5, desc[UR4][R2.64]"},
    {0x60, "BSYNC B0"},                   {0x70, "EXIT"},
    {0x80, "LDG.E R5, desc[UR4][R2.64]"}, {0x90, "STS [R0], R5"},
    {0xa0, "BAR.SYNC.DEFER_BLOCKING 0x0"}, {0xb0, "@!P3 LDS R7, [R0+0x20]"},
    {0xc0, "@P3 EXIT"},                   {0xd0, "STG.E desc[UR4][R4.64], R7"},
    {0xe0, "EXIT"},                       {0xf0, "BRA 0xf0"},
};

TEST(SassPaths, PlainBody) {
  const SassPaths p = paths(kPlain);
  EXPECT_EQ(p.inner, 3 + 7);       // 0x00-0x20, then 0x80-0xe0
  EXPECT_EQ(p.inner_exit, 3 + 5);  // ... leaving at 0xc0
  EXPECT_EQ(p.edge, 8);            // 0x00-0x70, the branch around the load falling through
  EXPECT_EQ(p.square, p.inner);
  EXPECT_EQ(p.square_exit, p.inner_exit);
  EXPECT_EQ(p.edge_square, p.edge);
  EXPECT_EQ(p.loads, 1);  // the inner path's LDG at 0x80, read by 0x90
  EXPECT_EQ(p.load_waits, 1);
}

TEST(SassPaths, DiagonalsGridBranch) {
  // A branch on the grid's shape before the edge test; the general side (0x20-0x40) divides, the square side
  // (0x50) adds, both join at 0x60.
  const Lines diagonal = {
      {0x00, "ISETP.NE.AND P0, PT, R8, R9, PT"}, {0x10, "@!P0 BRA 0x50"},
      {0x20, "I2F.RP R0, R5"},                   {0x30, "MUFU.RCP R0, R0"},
      {0x40, "BRA 0x60"},                        {0x50, "VIADD R0, R13, UR5"},
      {0x60, "@!P0 BRA P1, 0x90"},               {0x70, "LDG.E R5, desc[UR4][R2.64]"},
      {0x80, "EXIT"},                            {0x90, "LDG.E R5, desc[UR4][R2.64]"},
      {0xa0, "STG.E desc[UR4][R4.64], R5"},      {0xb0, "EXIT"},
  };
  const SassPaths p = paths(diagonal);
  EXPECT_EQ(p.inner, 5 + 1 + 3);        // 0x00-0x40, the edge test at 0x60, 0x90-0xb0
  EXPECT_EQ(p.square, 2 + 1 + 1 + 3);   // 0x00-0x10, 0x50, 0x60, 0x90-0xb0
  EXPECT_EQ(p.edge, 5 + 3);             // 0x00-0x40, 0x60-0x80
  EXPECT_EQ(p.edge_square, 2 + 1 + 3);  // 0x00-0x10, 0x50-0x80
}

TEST(SassPaths, LoadsAndTheirWaits) {
  // Two 64-bit loads issued together, an instruction reading neither, the first shared store reading R4-R5
  // (wait 1), a 128-bit load whose third register an add reads (wait 2), a predicated load whose register a
  // later load's address reads (wait 3), and that load, never read before EXIT (a round of its own).
  const std::vector<std::string> flight = {
      "LDG.E.64 R4, desc[UR4][R2.64]", "LDG.E.64 R6, desc[UR4][R2.64+0x100]", "IMAD.WIDE R8, R11, 0x8, R2",
      "STS.64 [R0], R4",               "STS.64 [R0+0x200], R6",               "LDG.E.128 R12, desc[UR4][R8.64]",
      "IADD3 R20, R14, 0x1, RZ",       "STG.E.128 desc[UR4][R8.64], R12",    "@P0 LDG.E R16, desc[UR4][R2.64]",
      "LDG.E R18, desc[UR4][R16.64]",  "EXIT"};
  Lines lines;
  for (size_t i = 0; i < flight.size(); ++i) lines.push_back({unsigned(i * 16), flight[i]});
  const SassPaths p = paths(lines);
  EXPECT_EQ(p.loads, 5);
  EXPECT_EQ(p.load_waits, 4);
  EXPECT_EQ(p.inner, int(flight.size()));
  // A direct body (copy's): load, store of it, load, store: one load a wait.
  const SassPaths direct = paths({{0x00, "LDG.E R17, desc[UR4][R10.64]"},
                                  {0x10, "SHF.L.U32 R19, R6, 0x3, RZ"},
                                  {0x20, "STG.E desc[UR4][R8.64], R17"},
                                  {0x30, "LDG.E R21, desc[UR4][R2.64]"},
                                  {0x40, "STG.E desc[UR4][R4.64], R21"},
                                  {0x50, "EXIT"}});
  EXPECT_EQ(direct.loads, 2);
  EXPECT_EQ(direct.load_waits, 2);
}

TEST(SassPaths, LabelledTargets) {
  // Newer cuobjdump prints targets as labels: `(.L_x_1) with the label on its own line.
  const std::string listing =
      "\t\tFunction : memsim_code_3\n"
      "        /*0000*/                   S2R R0, SR_TID.X ;\n"
      "        /*0010*/               @!P0 BRA P1, `(.L_x_1) ;\n"
      "        /*0020*/                   EXIT ;\n"
      ".L_x_1:\n"
      "        /*0030*/                   LDG.E R5, desc[UR4][R2.64] ;\n"
      "        /*0040*/                   STG.E desc[UR4][R4.64], R5 ;\n"
      "        /*0050*/                   EXIT ;\n";
  const auto f = sass_functions(listing);
  const SassPaths p = count_sass_paths(f.at("memsim_code_3"));
  EXPECT_EQ(p.inner, 2 + 3);
  EXPECT_EQ(p.edge, 3);
}

TEST(SassPaths, LoopsAreRefused) {
  // A loop nvcc did not unroll: no straight path to count.
  EXPECT_THROW(paths({{0x00, "IADD3 R0, R0, 0x1, RZ"}, {0x10, "@P0 BRA P1, 0x30"}, {0x20, "EXIT"},
                      {0x30, "LDG.E R5, desc[UR4][R2.64]"}, {0x40, "@P2 BRA 0x30"}, {0x50, "EXIT"}}),
               SassPathError);
  EXPECT_THROW(paths({{0x00, "BRA 0x40"}, {0x10, "EXIT"}}), SassPathError);  // to no instruction
  EXPECT_THROW(paths({{0x00, "S2R R0, SR_TID.X"}}), SassPathError);            // runs off the end
}

// cuobjdump -res-usage's listing: the first function's lines as cuobjdump 13.0 printed them for a small kernel,
// a second made up in the same format. Each function's REG, nothing from the Common section or other fields.
TEST(SassPaths, RegistersByFunction) {
  const std::string listing =
      "\nResource usage:\n Common:\n  GLOBAL:0\n"
      " Function memsim_code_1:\n  REG:12 STACK:0 SHARED:3072 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
      " Function _Z3fooPf:\n  REG:255 STACK:8 SHARED:0 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  const std::map<std::string, int> r = registers_by_function(listing);
  EXPECT_EQ(r, (std::map<std::string, int>{{"memsim_code_1", 12}, {"_Z3fooPf", 255}}));
  EXPECT_TRUE(registers_by_function("").empty());
  EXPECT_TRUE(registers_by_function(" Function f:\n  STACK:0\n").empty());  // no REG: nothing made up
}

}  // namespace
}  // namespace memsim
