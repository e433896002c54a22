#include "codegen/sass_paths.hpp"

#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace memsim {
namespace {

const std::regex& function_header() {
  static const std::regex re(R"(^\s*Function : (\S+)\s*$)");
  return re;
}
const std::regex& instruction_line() {
  static const std::regex re(R"(^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;)");
  return re;
}
const std::regex& label_line() {
  static const std::regex re(R"(^\s*(\.L\w+):\s*$)");
  return re;
}
// A branch: its guard, its second predicate (the uniform edge test has one), its target (an address, or a
// label cuobjdump prints in backquotes).
const std::regex& branch() {
  static const std::regex re(
      R"(^(@!?U?P[T0-9]+ )?BRA(?:\.\w+)* (?:(!?U?P[T0-9]+), )?`?\(?(0x[0-9a-fA-F]+|\.L\w+)\)?$)");
  return re;
}
const std::regex& predicated_exit() {
  static const std::regex re(R"(^@!?U?P[T0-9]+ EXIT$)");
  return re;
}
const std::regex& guard() {
  static const std::regex re(R"(^@!?U?P[T0-9]+ )");
  return re;
}
const std::regex& register_operand() {
  static const std::regex re(R"(\bR(\d+)(\.64)?\b)");
  return re;
}

struct Walk {
  int count = 0;
  bool grid_branch = false;  // met a predicated branch before the edge test (diagonal's grid shape)
};

// Instructions along one path (sass_paths.hpp); `trace` receives each instruction's text where given.
Walk walk(const std::vector<SassInstruction>& code, const std::unordered_map<uint32_t, size_t>& at,
          const std::unordered_map<std::string, uint32_t>& labels, bool edge, bool square, bool early_exit,
          std::vector<const std::string*>* trace) {
  Walk w;
  bool edge_seen = false;
  size_t k = 0;
  const auto target_of = [&](const std::string& t, const std::string& ins) {
    uint32_t address = 0;
    if (t.rfind(".L", 0) == 0) {
      const auto l = labels.find(t);
      if (l == labels.end()) throw SassPathError("a branch to an unknown label: " + ins);
      address = l->second;
    } else {
      address = uint32_t(std::stoul(t, nullptr, 16));
    }
    const auto it = at.find(address);
    if (it == at.end()) throw SassPathError("a branch to no instruction: " + ins);
    if (it->second <= k) throw SassPathError("a loop (a branch back), not one straight path: " + ins);
    return it->second;
  };
  for (;;) {
    if (k >= code.size() || w.count > 100000) throw SassPathError("a path runs off the function");
    const std::string& ins = code[k].text;
    ++w.count;
    if (trace) trace->push_back(&ins);
    if (ins == "EXIT") return w;
    if (std::regex_match(ins, predicated_exit())) {
      if (early_exit && !edge) return w;
      ++k;
      continue;
    }
    std::smatch m;
    if (std::regex_match(ins, m, branch())) {
      const bool guarded = m[1].matched, second = m[2].matched;
      if (guarded && second) {  // the uniform edge test
        if (edge_seen) throw SassPathError("two edge tests: " + ins);
        edge_seen = true;
        k = edge ? k + 1 : target_of(m[3].str(), ins);
      } else if (guarded) {
        if (!edge_seen) {  // before the edge test: diagonal's grid-shape branch
          w.grid_branch = true;
          k = square ? target_of(m[3].str(), ins) : k + 1;
        } else {  // around an access: lanes active, fall through
          target_of(m[3].str(), ins);  // still a forward branch to an instruction
          ++k;
        }
      } else {
        k = target_of(m[3].str(), ins);
      }
      continue;
    }
    ++k;
  }
}

std::set<int> registers(const std::string& operand) {
  std::set<int> out;
  for (std::sregex_iterator it(operand.begin(), operand.end(), register_operand()), end; it != end; ++it) {
    const int n = std::stoi((*it)[1].str());
    out.insert(n);
    if ((*it)[2].matched) out.insert(n + 1);
  }
  return out;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// (global loads, waits) along a path: a warp issues LDGs until an instruction reads a register one of them
// writes; the loads issued since the last wait are one round in flight. A load writes 1, 2 or 4 registers from
// its destination (.64, .128); a store reads all its operands, any other instruction those after its first.
std::pair<int, int> load_waits(const std::vector<const std::string*>& path) {
  std::set<int> pending;
  int loads = 0, waits = 0;
  for (const std::string* full : path) {
    const std::string ins = std::regex_replace(*full, guard(), "", std::regex_constants::format_first_only);
    const size_t space = ins.find(' ');
    const std::string op = ins.substr(0, space);
    std::vector<std::string> operands;
    if (space != std::string::npos) {
      std::stringstream rest(ins.substr(space + 1));
      for (std::string o; std::getline(rest, o, ',');) operands.push_back(o);
    }
    const bool store = starts_with(op, "STG") || starts_with(op, "STS") || starts_with(op, "ST.") ||
                       starts_with(op, "RED") || starts_with(op, "ATOM");
    if (!pending.empty()) {
      bool reads = false;
      for (size_t i = store ? 0 : 1; i < operands.size() && !reads; ++i)
        for (int r : registers(operands[i])) reads = reads || pending.count(r);
      if (reads) ++waits, pending.clear();
    }
    if (starts_with(op, "LDG") && !operands.empty()) {
      const int width = op.find(".128") != std::string::npos ? 4 : op.find(".64") != std::string::npos ? 2 : 1;
      const std::set<int> dest = registers(operands[0]);
      if (!dest.empty())
        for (int r = *dest.begin(); r < *dest.begin() + width; ++r) pending.insert(r);
      ++loads;
    }
  }
  return {loads, waits + (pending.empty() ? 0 : 1)};
}

}  // namespace

std::map<std::string, std::vector<SassInstruction>> sass_functions(const std::string& listing) {
  std::map<std::string, std::vector<SassInstruction>> out;
  std::vector<SassInstruction>* current = nullptr;
  std::istringstream in(listing);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, function_header())) {
      current = &out[m[1].str()];
      current->clear();
    } else if (current && std::regex_search(line, m, instruction_line())) {
      current->push_back({uint32_t(std::stoul(m[1].str(), nullptr, 16)), m[2].str()});
    } else if (current && std::regex_match(line, m, label_line())) {
      // A label names the next instruction: kept as an instruction-less marker resolved below.
      current->push_back({UINT32_MAX, m[1].str()});
    }
  }
  return out;
}

std::map<std::string, int> registers_by_function(const std::string& listing) {
  static const std::regex function(R"(^\s*Function\s+(\S+)\s*:\s*$)"), regs(R"(^\s*REG:(\d+)\b)");
  std::map<std::string, int> out;
  std::string current;
  std::istringstream in(listing);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, function)) {
      current = m[1].str();
    } else if (!current.empty() && std::regex_search(line, m, regs)) {
      out[current] = std::stoi(m[1].str().substr(0, 4));  // at most 255: four digits hold it
      current.clear();
    }
  }
  return out;
}

SassPaths count_sass_paths(const std::vector<SassInstruction>& listed) {
  // Labels resolve to the address of the instruction that follows them.
  std::vector<SassInstruction> code;
  std::unordered_map<std::string, uint32_t> labels;
  std::vector<std::string> waiting;
  for (const SassInstruction& i : listed) {
    if (i.address == UINT32_MAX) {
      waiting.push_back(i.text);
      continue;
    }
    for (const std::string& l : waiting) labels[l] = i.address;
    waiting.clear();
    code.push_back(i);
  }
  if (code.empty()) throw SassPathError("a function without instructions");
  std::unordered_map<uint32_t, size_t> at;
  for (size_t k = 0; k < code.size(); ++k) at[code[k].address] = k;
  SassPaths p;
  std::vector<const std::string*> path;
  const Walk inner = walk(code, at, labels, false, false, false, &path);
  p.inner = inner.count;
  std::tie(p.loads, p.load_waits) = load_waits(path);
  p.inner_exit = walk(code, at, labels, false, false, true, nullptr).count;
  p.square = inner.grid_branch ? walk(code, at, labels, false, true, false, nullptr).count : p.inner;
  p.square_exit = inner.grid_branch ? walk(code, at, labels, false, true, true, nullptr).count : p.inner_exit;
  p.edge = walk(code, at, labels, true, !inner.grid_branch, false, nullptr).count;
  p.edge_square = walk(code, at, labels, true, true, false, nullptr).count;
  return p;
}

}  // namespace memsim
