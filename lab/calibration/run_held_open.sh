#!/usr/bin/env bash
# memsim-held-open on a GPU machine: builds the benchmark alone with nvcc, runs it timed, then once under Nsight
# Compute for the DRAM counts. Usage: lab/calibration/run_held_open.sh OUTDIR
# MATCH='TEXT|TEXT' runs only the configurations whose names hold one of the parts (held_open.cu's --match); the
# whole-sector runs alone (lab/calibration/README.md, "Whole sectors held open"):
#   MATCH='P=1 Q=|uint64_t P=2 Q=1 at_once narrow 8 |uint64_t P=2 Q=2 at_once narrow 8 |uint64_t P=2 Q=4 at_once narrow 8 ' \
#     lab/calibration/run_held_open.sh OUTDIR
set -euo pipefail
OUT=${1:?usage: run_held_open.sh OUTDIR}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT"/gpu.txt
nvcc --version | tail -2 >> "$OUT"/gpu.txt
nvcc -std=c++17 -O3 -arch=sm_90 -I. lab/calibration/held_open.cu -o /tmp/held_open
cuobjdump -sass /tmp/held_open | grep -A60 "held_openIjLi2ELi1E" | head -80 > "$OUT"/sass_u32_p2_q1.txt || true
match=(); [ -n "${MATCH:-}" ] && match=(--match "$MATCH")
/tmp/held_open "${match[@]}" > "$OUT"/held_open.json
ncu --clock-control none --csv --print-units base --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_requests_srcunit_tex_op_write.sum,gpu__time_duration.sum /tmp/held_open --once "${match[@]}" | grep "^\"" > "$OUT"/held_open.ncu.csv 2>"$OUT"/ncu.err
tail -3 "$OUT"/held_open.json; wc -l "$OUT"/held_open.ncu.csv
