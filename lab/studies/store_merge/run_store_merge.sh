#!/usr/bin/env bash
# Runs memsim-store-merge on this machine's GPU: the timed runs (every output checked), then each
# configuration once under Nsight Compute for the sectors the stores issue and the sectors the L2 receives.
#
#   lab/studies/store_merge/run_store_merge.sh OUT_DIR [BUILD_DIR]
#
# Writes OUT_DIR/store_merge.json, OUT_DIR/store_merge.ncu.csv and OUT_DIR/store_merge.sass (the stores'
# order as nvcc compiled it). BUILD_DIR: a CMake build with -DMEMSIM_CUDA=ON -DMEMSIM_STUDIES=ON; without it
# the program is compiled here with nvcc alone.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
if [[ $# -eq 2 ]]; then
  bin=$2/lab/studies/store_merge/memsim-store-merge
  cmake --build "$2" --target memsim-store-merge -j
else
  bin=$out/memsim-store-merge
  nvcc -std=c++17 -O3 -arch=native -I"$root" -o "$bin" "$root/lab/studies/store_merge/store_merge.cu"
fi
cuobjdump -sass "$bin" | grep -E "Function|STG" > "$out/store_merge.sass"
"$bin" > "$out/store_merge.json"
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_write.sum,\
dram__bytes_read.sum,gpu__time_duration.sum
# The profiler names the program by its path on this machine: kept out of the committed file.
ncu --metrics "$metrics" --csv "$bin" --once | sed "s#($bin)#(memsim-store-merge)#" > "$out/store_merge.ncu.csv"
echo "store_merge: wrote $out/store_merge.json, store_merge.ncu.csv, store_merge.sass"
