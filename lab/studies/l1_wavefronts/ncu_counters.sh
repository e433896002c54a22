#!/usr/bin/env bash
# Nsight Compute counters beyond the validation run's fixed list, for every suite configuration of a sweep:
# each configuration launched once (memsim-validate's --ncu-child mode, the launches the validation run
# profiles), one CSV row per launch and metric. For diagnostics (which resource holds a kernel, whether a
# count rule holds for every kernel); memsim-validate --ncu stays the run that joins counts to predictions.
#
#   lab/studies/l1_wavefronts/ncu_counters.sh OUT.csv METRICS [memsim-validate sweep options...]
#   e.g. lab/studies/l1_wavefronts/ncu_counters.sh l1.ncu.csv l1tex__data_pipe_lsu_wavefronts.sum \
#          --kernels all --blocks 32x8,16x16,8x32 --matrices 8192x8192 --dtypes f16,f32,f64
#
# Environment: MEMSIM_VALIDATE (default build-gpu/validate/memsim-validate), NCU (default ncu).
# Exit status 2, before ncu runs, for a wrong argument, no memsim-validate, no ncu or no GPU (nvidia-smi failing).
set -euo pipefail
usage_error() { echo "ncu_counters.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
esac
usage="usage: lab/studies/l1_wavefronts/ncu_counters.sh OUT.csv METRICS [memsim-validate sweep options...] (--help for more)"
[ $# -ge 2 ] || usage_error "$usage"
out=$1
metrics=$2
shift 2
case "$out" in
  "" | -*) usage_error "OUT.csv must be a file name, got '$out'; $usage" ;;
esac
case "$metrics" in
  "" | -*) usage_error "METRICS must be Nsight Compute metric names separated by commas, got '$metrics'; $usage" ;;
esac
[ ! -d "$out" ] || usage_error "OUT.csv $out is a directory"
[ -d "$(dirname "$out")" ] || usage_error "no directory $(dirname "$out") for OUT.csv $out"
bin=${MEMSIM_VALIDATE:-build-gpu/validate/memsim-validate}
if [ ! -x "$bin" ] || [ -d "$bin" ]; then usage_error "no memsim-validate at $bin (build it, or set MEMSIM_VALIDATE)"; fi
command -v "${NCU:-ncu}" >/dev/null 2>&1 || usage_error "no Nsight Compute: ${NCU:-ncu} not found (put ncu on PATH, or set NCU)"
nvidia-smi -L >/dev/null 2>&1 || usage_error "no GPU (nvidia-smi fails): run on a machine with an NVIDIA GPU"
# --clock-control none: the clocks the card runs at, as the timed runs see them (docs/validation.md).
"${NCU:-ncu}" --clock-control none --csv --print-units base --print-metric-name name --print-kernel-base demangled \
  --kernel-name regex:suite_kernel --metrics "$metrics" --log-file "$out" "$bin" "$@" --ncu-child
