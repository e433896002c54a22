#!/usr/bin/env bash
# memsim-step-lines on a GPU machine: builds the benchmark alone with nvcc, runs it timed, then once under Nsight
# Compute for the DRAM counts. Usage: lab/calibration/run_step_lines.sh OUTDIR
set -euo pipefail
OUT=${1:?usage: run_step_lines.sh OUTDIR}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT"/gpu.txt
nvcc --version | tail -2 >> "$OUT"/gpu.txt
nvcc -std=c++17 -O3 -arch=sm_90 -I. lab/calibration/step_lines.cu -o /tmp/step_lines
/tmp/step_lines > "$OUT"/step_lines.json
ncu --clock-control none --csv --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_requests_srcunit_tex_op_write.sum,gpu__time_duration.sum /tmp/step_lines --once | grep "^\"" > "$OUT"/step_lines.ncu.csv 2>"$OUT"/ncu.err
tail -3 "$OUT"/step_lines.json; wc -l "$OUT"/step_lines.ncu.csv
