#!/usr/bin/env bash
# Takes the calibration measurements on a machine with an NVIDIA GPU, nvcc and ncu, in one command:
#   1. builds memsim-microbench;
#   2. runs every microbenchmark (and the suite hold-out) -> OUT_DIR/microbench_raw.json;
#   3. counts the issue benchmarks' warp instructions with Nsight Compute (one launch each) -> issue_ncu.csv;
#   4. puts the counts into the document -> OUT_DIR/microbench.json, the file memsim-calibrate reads:
#        memsim-calibrate --microbench OUT_DIR/microbench.json --base h100 --out model/devices/h100.json
#   5. runs the split-sector benchmark (memsim-microbench --split-sectors: sector halves from blocks D apart,
#      vec4_shared f16 32x8's stores) -> OUT_DIR/split_sectors.json, fitted with microbench.json (the cost of
#      a sector another block completes; memsim-calibrate leaves out the runs its counts do not describe:
#      docs/model.md, split sectors);
#   6. runs the DRAM order benchmark (memsim-microbench --dram-order: a copy with one side in transposed order)
#      -> OUT_DIR/dram_order.json, fitted with the others (the cost of bytes met out of order);
#   7. runs the block-shape benchmark (memsim-microbench --block-shapes: a copy in blocks of 1 to 32 warps,
#      empty launches of many blocks) -> OUT_DIR/block_shapes.json, fitted with the others (the GPU's block
#      launch rate, and how long a block's slot waits for its slowest warp);
#   8. runs the chain loads (memsim-microbench --chain-loads: strided loads, one in flight a warp, 1 to 32 rows
#      a request) -> OUT_DIR/chain_loads.json, fitted with the others (what a load waits for each L2 request
#      it sends beyond the first: docs/model.md, L2 read requests).
#
#   lab/calibration/run_calibration.sh OUT_DIR
#
# Environment: MEMSIM_BUILD_DIR (default build-gpu), MEMSIM_CMAKE_ARGS, MEMSIM_CUDA_ARCH (default 90), NCU.
# Exit status 2, before anything is built or written, for a wrong argument, no GPU (nvidia-smi failing) or no
# ncu.
set -euo pipefail
usage_error() { echo "run_calibration.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
  -*) usage_error "unknown option $1 (usage: lab/calibration/run_calibration.sh OUT_DIR; --help for more)" ;;
  "") if [ $# -eq 1 ]; then usage_error "OUT_DIR is empty"; fi ;;
esac
[ $# -eq 1 ] || usage_error "usage: lab/calibration/run_calibration.sh OUT_DIR (one argument, got $#; --help for more)"
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
ncu=${NCU:-ncu}
nvidia-smi -L >/dev/null 2>&1 || usage_error "no GPU (nvidia-smi fails): run on a machine with an NVIDIA GPU"
command -v "$ncu" >/dev/null 2>&1 || usage_error "no Nsight Compute: $ncu not found (put ncu on PATH, or set NCU)"
err=$(mkdir -p "$out" 2>&1) || usage_error "cannot create OUT_DIR $out: ${err##*: }"
out=$(cd "$out" && pwd)
cd "$root"
build=${MEMSIM_BUILD_DIR:-build-gpu}
# shellcheck disable=SC2086  # MEMSIM_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=ON -DMEMSIM_BUILD_BENCHMARKS=OFF \
  -DMEMSIM_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${MEMSIM_CUDA_ARCH:-90}" ${MEMSIM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target memsim-microbench
bench="$build/lab/calibration/memsim-microbench"
"$bench" > "$out/microbench_raw.json"
"$ncu" --clock-control none --csv --print-units base --print-metric-name name --print-kernel-base demangled \
  --metrics smsp__inst_executed.sum -k regex:issue_ "$bench" --issue-only > "$out/issue_ncu.csv"
python3 lab/calibration/add_instructions.py "$out/microbench_raw.json" "$out/issue_ncu.csv" > "$out/microbench.json"
"$bench" --split-sectors > "$out/split_sectors.json"
"$bench" --dram-order > "$out/dram_order.json"
"$bench" --block-shapes > "$out/block_shapes.json"
"$bench" --chain-loads > "$out/chain_loads.json"
echo "run_calibration: wrote $out/microbench.json, $out/dram_order.json, $out/split_sectors.json, $out/block_shapes.json and $out/chain_loads.json"
