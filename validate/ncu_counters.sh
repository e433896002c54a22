#!/usr/bin/env bash
# Nsight Compute counters beyond the validation run's fixed list, for every suite configuration of a sweep:
# each configuration launched once (memsim-validate's --ncu-child mode, the launches the validation run
# profiles), one CSV row per launch and metric. For diagnostics (which resource holds a kernel, whether a
# count rule holds for every kernel); memsim-validate --ncu stays the run that joins counts to predictions.
#
#   validate/ncu_counters.sh OUT.csv METRICS [memsim-validate sweep options...]
#   e.g. validate/ncu_counters.sh l1.ncu.csv l1tex__data_pipe_lsu_wavefronts.sum \
#          --kernels all --blocks 32x8,16x16,8x32 --matrices 8192x8192 --dtypes f16,f32,f64
#
# Environment: MEMSIM_VALIDATE (default build-gpu/validate/memsim-validate), NCU (default ncu).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
out=$1
metrics=$2
shift 2
bin=${MEMSIM_VALIDATE:-build-gpu/validate/memsim-validate}
[ -x "$bin" ] || { echo "ncu_counters: no memsim-validate at $bin (build it, or set MEMSIM_VALIDATE)" >&2; exit 1; }
# --clock-control none: the clocks the card runs at, as the timed runs see them (GUIDE.md 4).
"${NCU:-ncu}" --clock-control none --csv --print-units base --print-metric-name name --print-kernel-base demangled \
  --kernel-name regex:suite_kernel --metrics "$metrics" --log-file "$out" "$bin" "$@" --ncu-child
