#!/usr/bin/env bash
# Runs memsim-split-lines on this machine's GPU: the timed runs (every output checked), then each
# configuration once under Nsight Compute for its DRAM bytes, the L2's write sectors and its instructions.
# Both lane widths, in one run of the program: the 54 runs with 4-byte lanes, then the 54 with 2-byte lanes
# ("2-byte lanes, ..."; README.md), 108 in all, in the same order in the JSON and the CSV (terms.py pairs them).
#
#   lab/studies/split_lines/run_split_lines.sh OUT_DIR [BUILD_DIR]
#
# Writes OUT_DIR/split_lines.json and OUT_DIR/split_lines.ncu.csv. BUILD_DIR: a CMake build with
# -DMEMSIM_CUDA=ON -DMEMSIM_STUDIES=ON; without it the program is compiled here with nvcc alone.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
if [[ $# -eq 2 ]]; then
  bin=$2/lab/studies/split_lines/memsim-split-lines
  cmake --build "$2" --target memsim-split-lines -j
else
  bin=$out/memsim-split-lines
  nvcc -std=c++17 -O3 -arch=native -I"$root" -o "$bin" "$root/lab/studies/split_lines/split_lines.cu"
fi
"$bin" > "$out/split_lines.json"
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_write.sum,\
dram__bytes_read.sum,gpu__time_duration.sum,smsp__inst_executed.sum
# The profiler names the program by its path on this machine: kept out of the committed file.
ncu --metrics "$metrics" --csv "$bin" --once | sed "s#($bin)#(memsim-split-lines)#" > "$out/split_lines.ncu.csv"
echo "split_lines: wrote $out/split_lines.json, split_lines.ncu.csv"
