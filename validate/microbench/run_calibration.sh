#!/usr/bin/env bash
# Takes the calibration measurements on a machine with an NVIDIA GPU, nvcc and ncu, in one command:
#   1. builds memsim-microbench;
#   2. runs every microbenchmark (and the suite hold-out) -> OUT_DIR/microbench_raw.json;
#   3. counts the issue benchmarks' warp instructions with Nsight Compute (one launch each) -> issue_ncu.csv;
#   4. puts the counts into the document -> OUT_DIR/microbench.json, the file memsim-calibrate reads:
#        memsim-calibrate --microbench OUT_DIR/microbench.json --base h100 --out model/devices/h100.json
#
#   validate/microbench/run_calibration.sh OUT_DIR
#
# Environment: MEMSIM_BUILD_DIR (default build-gpu), MEMSIM_CMAKE_ARGS, MEMSIM_CUDA_ARCH (default 90), NCU.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run_calibration.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$root"
build=${MEMSIM_BUILD_DIR:-build-gpu}
ncu=${NCU:-ncu}
# shellcheck disable=SC2086  # MEMSIM_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=ON -DMEMSIM_BUILD_BENCHMARKS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="${MEMSIM_CUDA_ARCH:-90}" ${MEMSIM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target memsim-microbench
bench="$build/validate/microbench/memsim-microbench"
"$bench" > "$out/microbench_raw.json"
"$ncu" --clock-control none --csv --print-units base --print-metric-name name --print-kernel-base demangled \
  --metrics smsp__inst_executed.sum -k regex:issue_ "$bench" --issue-only > "$out/issue_ncu.csv"
python3 validate/microbench/add_instructions.py "$out/microbench_raw.json" "$out/issue_ncu.csv" > "$out/microbench.json"
echo "run_calibration: wrote $out/microbench.json"
