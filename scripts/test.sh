#!/usr/bin/env bash
# Installs what is missing, builds everything (the CUDA parts too when nvcc is there) and runs the quick
# test suite: the command README.md gives and .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
build=${MEMSIM_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -L quick --output-on-failure -j "$(nproc)"
