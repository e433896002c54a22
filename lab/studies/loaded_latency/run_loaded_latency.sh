#!/usr/bin/env bash
# Builds memsim-loaded-latency with nvcc, times configs.txt, profiles ncu_configs.txt once each under Nsight
# Compute, and packs everything into $OUT/loaded_latency.tgz (or ./out/ without $OUT). Run from the repository
# root: lab/studies/loaded_latency/run_loaded_latency.sh [CONFIGS NCU_CONFIGS TAG]
# (defaults configs.txt ncu_configs.txt ll: the first run; walks.txt ncu_walks.txt walks: the second)
set -uo pipefail
here=lab/studies/loaded_latency
configs=$here/${1:-configs.txt} ncu_configs=$here/${2:-ncu_configs.txt} tag=${3:-ll}
out=${OUT:-$PWD/out}/$tag
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv;
  nvcc --version | tail -2; } >"$out/machine.txt" 2>&1
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/memsim-loaded-latency $here/loaded_latency.cu 2>"$out/build.txt" || exit 1
cuobjdump -sass /tmp/memsim-loaded-latency >"$out/sass.txt" 2>&1
/tmp/memsim-loaded-latency $configs >"$out/results.jsonl" 2>"$out/stderr.txt"
echo "timing rc=$?" >>"$out/machine.txt"
if command -v ncu >/dev/null; then
  LL_REPS=1 timeout 240 ncu --clock-control none --csv --page details --section SpeedOfLight --section WarpStateStats \
    --metrics lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
    /tmp/memsim-loaded-latency $ncu_configs >"$out/ncu.csv" 2>"$out/ncu_stderr.txt"
  # Every config once more, its instructions and L2 requests alone (for memsim --instructions).
  LL_REPS=1 timeout 300 ncu --clock-control none --csv --page details \
    --metrics smsp__inst_executed.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,gpu__time_duration.sum \
    /tmp/memsim-loaded-latency $configs >"$out/ncu_counts.csv" 2>"$out/ncu_counts_stderr.txt"
fi
date -u +%FT%TZ >>"$out/machine.txt"
tar -C "$(dirname "$out")" -czf "$(dirname "$out")/$tag.tgz" $tag && rm -rf "$out"
