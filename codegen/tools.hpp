#pragma once
// What the run-time compilers' drivers share (codegen/compiled_code.cpp runs nvcc, codegen/kernel_file.cpp the
// host compiler): finding tools, running them, hashing what they read.
#include <cstdint>
#include <string>
#include <vector>

namespace memsim::tools {

std::string env(const char* name);  // "" when unset
bool executable(const std::string& path);
std::string on_path(const std::string& name);  // "" when not found
// `tool` in the directory of `beside` when it is there, else on PATH.
std::string beside_or_on_path(const std::string& tool, const std::string& beside);
std::string read_file(const std::string& path);  // "" when unreadable
// Runs argv (no shell) with stdout and stderr into files; the exit status (-1 when it could not start).
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err);
// 64-bit FNV-1a: a stable content hash for the caches' keys (std::hash may differ between builds).
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull);
std::string hex(uint64_t v);  // 16 hex digits
// The hash of the files directly under root/DIR (each of `dirs`) whose extension is one of `extensions`
// (".hpp"), by name and content in name order, from fnv1a(seed): the part of a cache's key that stands for
// the headers a run-time compile reads.
std::string hash_headers(const std::string& root, const std::vector<std::string>& dirs,
                         const std::vector<std::string>& extensions, const std::string& seed);
// Where memsim's headers are: $MEMSIM_KERNEL_DIR, else an installed tree's copy (share/memsim/include), else
// the source tree memsim was built from.
std::string kernel_dir();

}  // namespace memsim::tools
