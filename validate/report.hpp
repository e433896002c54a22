#pragma once
// One run's results as one JSON document (command line, git revision, device, date; one record per
// configuration with prediction and measurement side by side), and the CSV and Markdown rendered from that
// JSON alone, so either can be re-made from a committed report.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>

#include "validate/results.hpp"

namespace memsim::validate {

// How far a measured counter may sit from memsim's prediction: exact for global requests and sectors; for
// shared instructions between memsim's count (instructions with an active lane) and the instructions reached
// (validate/reached.hpp); a one-sided band for shared wavefronts (and the bank conflicts derived from them),
// which the hardware counts a little above the address-level count even for conflict-free code.
struct Tolerance {
  bool exact = true;
  bool bounded = false;               // predicted <= measured <= the record's upper bound (exact without one)
  double below = 0, above = 0;        // allowed (measured - predicted) / reference in [-below, +above]
  std::string reference = "predicted";  // what the relative error divides by
  std::string why;
};
std::optional<Tolerance> tolerance_for(const std::string& metric);
nlohmann::ordered_json tolerances_json();

nlohmann::ordered_json run_json(const RunResult& run);

// A saved run that cannot be rendered, in one line naming the document and the field:
// "suite.json: records[3].config is missing".
struct RunDocumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Checks a saved run (--render's input) before anything is rendered or written: a memsim-validate/1 document
// holding every field refresh_summaries, failures, write_csv and write_markdown read, each of the type and range
// run_json writes, and at least one configuration or address check. Throws RunDocumentError on the first field
// that is not, naming `where` (the file) and the field's path. A document that passes renders without error.
void check_run_document(const nlohmann::ordered_json& run, const std::string& where);

// Recomputes a run's "summary" and "model_accuracy" from its records (for --render: reports re-rendered from
// a saved JSON after the report code changed, with no GPU).
void refresh_summaries(nlohmann::ordered_json& run);

// Every failed check in a run's JSON, one line each (empty: the run passed).
std::vector<std::string> failures(const nlohmann::ordered_json& run);

// Long format: one row per (configuration or baseline, quantity) with predicted, measured, relative error.
void write_csv(std::ostream& os, const nlohmann::ordered_json& run);

// The tables printed at the end of a run: per matrix and dtype the kernels' bandwidth against the copy kernel
// and cuBLAS, then each count predicted against measured.
void write_markdown(std::ostream& os, const nlohmann::ordered_json& run);

}  // namespace memsim::validate
