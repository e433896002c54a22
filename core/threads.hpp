#pragma once
// How many worker threads to run: what the user asked for (--threads), or every hardware thread.
#include <algorithm>
#include <thread>

namespace memsim {

// The threads the machine runs at once; at least 1 (hardware_concurrency() is 0 where it cannot tell).
inline int hardware_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// `asked` where it is positive, else every hardware thread (--threads 0, the default).
inline int threads_to_use(int asked) { return asked > 0 ? asked : hardware_threads(); }

}  // namespace memsim
