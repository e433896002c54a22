#pragma once
// memsim --plot: the document a picture is drawn from, and the drawing handed to plots/memsim_plot.py
// (Python 3 + matplotlib) as a subprocess. Nothing here counts: the bank map is the replay's own warp
// accesses of block 0 with the simulator's bank rule applied per phase (sim/shared_banks.hpp).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/resolve.hpp"
#include "sim/replay.hpp"
#include "sim/tally.hpp"

namespace memsim {

// The kinds --plot draws, in the order --help lists them.
const std::vector<std::string>& plot_kinds();

// The shared sites' warp instructions of block 0 (the replay's, kept: ReplayOptions::keep_first_block_shared),
// lane by lane: for each lane the words it reads or writes
// and their banks, for each phase the distinct words every bank delivers and the wavefronts, as
// {"block": 0, "rules": {...}, "sites": [{"site", "name", "op", "expr", "instructions": [...]}]}.
nlohmann::ordered_json bank_map_json(const ReplayResult& replay, const MemoryRules& rules);

// The lanes served together by one wavefront of a shared access `width` bytes wide (sim/shared_banks.cpp's
// phase rule): 32 for up to 4 bytes on 32 banks of 4 bytes, 16 for 8 bytes, 8 for 16 bytes.
int shared_phase_lanes(int width, const BankRules& rules);

// The Python --plot runs: $MEMSIM_PYTHON when set (that one only), else the first of python3 on PATH and
// /usr/bin/python3 that imports matplotlib. `python` is "" when none does, and `why` says so with the exact
// command that installs matplotlib for each Python tried.
struct PythonChoice {
  std::string python, why;
};
PythonChoice find_python();

// Writes `document` to `out` when it ends in .json; else runs the plotting script on it (the document on its
// standard input) to draw `kind` into `out` (.png or .svg), with `extra` arguments. Returns the exit code
// for memsim: the script's, or 2 with one line on stderr when Python or the script cannot be run.
int draw_plot(const std::string& kind, const std::string& out, const nlohmann::ordered_json& document,
              const std::vector<std::string>& extra);

}  // namespace memsim
