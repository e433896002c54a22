#pragma once
// The replay's hot loops run over the 32 lanes of a warp, mostly in 64-bit integers. SSE2, all that every
// x86-64 has, vectorizes them 2 lanes an instruction and has no 64-bit compare; AVX2 does 4 and has one.
// MEMSIM_AVX2_CLONES compiles a function twice on x86-64 with GCC, and the loader picks the AVX2 clone on
// CPUs that have it (on padded 8192x8192, the replay ran more than twice as fast).
// Elsewhere it is empty and the function is compiled once.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MEMSIM_AVX2_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef MEMSIM_AVX2_CLONES
#define MEMSIM_AVX2_CLONES
#endif
