#!/usr/bin/env bash
# Installs what is missing, builds everything (the CUDA parts too when nvcc is there) and runs the quick
# test suite: the command README.md gives and .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
build=${MEMSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_STUDIES=ON
bash scripts/python-venv.sh "$build"  # Kernel Tuner for the Python module's tests (once; docs/python.md)
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -L quick --output-on-failure -j "$(nproc)"

# The CPU code once more with AddressSanitizer and UndefinedBehaviorSanitizer, every finding fatal (leaks
# too), and the quick suite on it; no CUDA, no benchmarks. Built with clang where there is one, which also
# builds the fuzz targets: each then runs for a bounded time from its seed corpus (fuzz/run.sh). See
# docs/testing.md. MEMSIM_SANITIZE=0 skips this stage; MEMSIM_FUZZ_SECONDS sets the fuzzers' time (60 s). No
# Python module here: an instrumented extension loads only into a python run with the sanitizer runtime
# preloaded, and its C++ is the command's, which this stage checks already. intercept_tls_get_addr=0: up to
# LLVM 16 and GCC 13 the runtime's __tls_get_addr hook takes a dynamic TLS block that malloc happens to place
# 16 bytes into a page for a glibc 2.19 header, and the leak check at exit then dies on a wild read ("Tracer
# caught signal 11") in any run that loads a --kernel-file plugin with thread_locals. Those blocks are still
# scanned, through the thread's DTV: no leak goes unseen (docs/testing.md).
if [ "${MEMSIM_SANITIZE:-1}" != 0 ]; then
  checked="$build-asan"
  fuzz=OFF
  compiler=()
  if command -v clang++ >/dev/null 2>&1; then fuzz=ON compiler=(-DCMAKE_CXX_COMPILER=clang++); fi
  cmake -S . -B "$checked" -G Ninja "${compiler[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
        -DMEMSIM_CUDA=OFF -DMEMSIM_BUILD_BENCHMARKS=OFF -DMEMSIM_PYTHON=OFF -DMEMSIM_SANITIZE=ON -DMEMSIM_FUZZ=$fuzz
  cmake --build "$checked" -j "$(nproc)"
  ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0:check_initialization_order=1:strict_init_order=1 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$checked" -L quick --output-on-failure -j "$(nproc)"
  if [ "$fuzz" = ON ]; then bash fuzz/run.sh "$checked" "${MEMSIM_FUZZ_SECONDS:-60}"; fi
fi
