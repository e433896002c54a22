// validate/record_lines.hpp: the one-record-per-line layout of the committed JSON run documents
// (validate/results/README.md) on a hand-written document, its round trip, and the same text as
// validate/record_lines.py gave the committed runs (tests/formats/test_record_lines.py checks those).
#include "validate/record_lines.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using Json = nlohmann::ordered_json;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string source_file(const std::string& rel) { return read_file(std::string(MEMSIM_SOURCE_DIR_PATH) + "/" + rel); }

// A hand-written document and its layout, the same files tests/formats/test_record_lines.py reads.
Json document() { return Json::parse(source_file("tests/formats/record_lines_input.json")); }
std::string expected() { return source_file("tests/formats/record_lines_expected.json"); }

TEST(RecordLines, LaysOutAHandWrittenDocument) { EXPECT_EQ(memsim::record_lines(document()), expected()); }

TEST(RecordLines, RoundTripKeepsKeyOrderTypesAndFloats) {
  const Json doc = document();
  const Json back = Json::parse(memsim::record_lines(doc));
  EXPECT_EQ(back, doc);
  EXPECT_EQ(back.begin().key(), "schema");
  EXPECT_TRUE(back["context"]["settings"]["l2_multiple"].is_number_float());
  const double floats[] = {0.1, 1.0 / 3.0, 1e-300, 123456789.123456789, 1152921504606846976.0, -0.0};
  Json runs = Json::array();
  for (double x : floats) runs.push_back(Json{{"x", x}});
  const Json again = Json::parse(memsim::record_lines(Json{{"runs", runs}}));
  for (size_t i = 0; i < runs.size(); ++i) {
    const double x = floats[i], y = again["runs"][i]["x"].get<double>();
    EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << "float " << i << " did not round-trip";
  }
}

TEST(RecordLines, TopLevelArrayAndFlatObject) {
  EXPECT_EQ(memsim::record_lines(Json::parse(R"([{"a": 1}, {"a": 2}])")), "[\n {\"a\":1},\n {\"a\":2}\n]\n");
  EXPECT_EQ(memsim::record_lines(Json::parse("[1, 2]")), "[1,2]\n");
  EXPECT_EQ(memsim::record_lines(Json::parse(R"({"a": 1})")), "{\n \"a\":1\n}\n");
}

// The committed runs were laid out by validate/record_lines.py: the programs write the same bytes.
TEST(RecordLines, SameTextAsThePythonLayoutOfCommittedRuns) {
  for (const char* rel : {"validate/results/h200_best_repeat1.json", "lab/calibration/results/h100_microbench.json",
                          "validate/results/partition_sweep.json"}) {
    const std::string text = source_file(rel);
    ASSERT_FALSE(text.empty()) << rel;
    EXPECT_TRUE(memsim::record_lines(Json::parse(text)) == text) << rel << " differs from its C++ layout";
  }
}

}  // namespace
