#!/usr/bin/env bash
# memsim-step-lines on a GPU machine: builds the benchmark alone with nvcc, runs it timed, then once under Nsight
# Compute for the DRAM counts and the L2's read hits. Usage: lab/calibration/run_step_lines.sh OUTDIR
# (STEP_LINES_BIN=FILE runs that build of step_lines.cu, made elsewhere with the same nvcc line, instead;
# STEP_LINES_MATCH=TEXT runs only the configurations it selects, as --match TEXT does: parts apart by '|'.)
set -euo pipefail
OUT=${1:?usage: run_step_lines.sh OUTDIR}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT"/gpu.txt
nvcc --version | tail -2 >> "$OUT"/gpu.txt
bin=${STEP_LINES_BIN:-/tmp/step_lines}
[ -n "${STEP_LINES_BIN:-}" ] || nvcc -std=c++17 -O3 -arch=sm_90 -I. lab/calibration/step_lines.cu -o "$bin"
match=(); [ -z "${STEP_LINES_MATCH:-}" ] || match=(--match "$STEP_LINES_MATCH")
"$bin" "${match[@]}" > "$OUT"/step_lines.json
ncu --clock-control none --csv --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum "$bin" --once "${match[@]}" | grep "^\"" > "$OUT"/step_lines.ncu.csv 2>"$OUT"/ncu.err
tail -3 "$OUT"/step_lines.json; wc -l "$OUT"/step_lines.ncu.csv
