#!/usr/bin/env bash
# Calibrates memsim for the GPU of this machine in one command (docs/second_gpu.md):
#   1. configures and builds memsim-microbench (CUDA) and memsim-calibrate;
#   2. runs the calibration microbenchmarks and counts the issue benchmarks' instructions with Nsight Compute
#      (lab/calibration/run_calibration.sh) -> lab/calibration/results/NAME_microbench.json, NAME_issue_ncu.csv,
#      the DRAM order benchmark, NAME_dram_order.json, the split-sector benchmark, NAME_split_sectors.json,
#      the block-shape benchmark, NAME_block_shapes.json, and the chain loads, NAME_chain_loads.json;
#   3. fits the cost model's constants (memsim-calibrate) in two steps: the microbenchmarks and the DRAM order
#      runs, then all three with the DRAM order's costs held as the first step fitted them (the split runs'
#      transposed layout would otherwise pull them) -> model/devices/NAME.json and the fit's
#      report, lab/calibration/results/NAME_calibration_report.txt, which ends with the check of the new profile:
#      the suite kernels the run timed, predicted and measured (the fit never sees them).
# Each stage prints one progress line with the time since the start.
#
#   scripts/calibrate_gpu.sh NAME [--base PROFILE]
#   scripts/calibrate_gpu.sh NAME --from RUN.json [--base PROFILE]   # no GPU: builds memsim-calibrate, stage 3
#
# NAME: the profile's name, lower-case letters, digits and '_' (e.g. h200); memsim --device NAME then uses it.
# --base: the profile the fit starts from, whose limits and held constants it keeps (default: NAME itself where
# model/devices/NAME.json exists, else NAME_datasheet where that exists, else h100). Give a profile of the same
# architecture, and MEMSIM_CUDA_ARCH to match it.
# --from: fit an existing memsim-microbench document (copied to lab/calibration/results/NAME_microbench.json unless it
# is that file), with lab/calibration/results/NAME_dram_order.json, NAME_split_sectors.json, NAME_block_shapes.json and
# NAME_chain_loads.json where they exist;
# nothing is measured, no GPU is needed.
#
# Environment: MEMSIM_BUILD_DIR (default build-gpu; with --from, build), MEMSIM_CUDA_ARCH (default 90),
# MEMSIM_CMAKE_ARGS, NCU (default ncu), CUDACXX (default nvcc). Exit status 2, before anything is built or
# written, for a wrong argument, no GPU (nvidia-smi failing), no ncu or no nvcc; else the status of the stage
# that failed.
set -euo pipefail
usage="scripts/calibrate_gpu.sh NAME [--base PROFILE] [--from RUN.json]"
usage_error() { echo "calibrate_gpu.sh: $*" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)

name="" base="" from=""
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
    --base | --from)
      [ $# -ge 2 ] || usage_error "option $1 needs a value (usage: $usage)"
      [ -n "$2" ] || usage_error "option $1 is empty"
      if [ "$1" = --base ]; then base=$2; else from=$2; fi
      shift 2 ;;
    -*) usage_error "unknown option $1 (usage: $usage; --help for more)" ;;
    *)
      [ -z "$name" ] || usage_error "one NAME only, got '$name' and '$1' (usage: $usage)"
      [ -n "$1" ] || usage_error "NAME is empty"
      name=$1
      shift ;;
  esac
done
[ -n "$name" ] || usage_error "no NAME (usage: $usage; --help for more)"
[[ $name =~ ^[a-z0-9][a-z0-9_]*$ ]] ||
  usage_error "bad NAME '$name': a profile name is lower-case letters, digits and '_' (e.g. h200), no path or .json"

devices=$root/model/devices
if [ -z "$base" ]; then
  if [ -f "$devices/$name.json" ]; then base=$name
  elif [ -f "$devices/${name}_datasheet.json" ]; then base=${name}_datasheet
  else base=h100; fi
fi
if [[ $base == */* || $base == *.json ]]; then
  [ -f "$base" ] || usage_error "--base $base: no such profile file"
  base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
else
  [ -f "$devices/$base.json" ] || usage_error "--base $base: no profile of that name in model/devices"
fi

if [ -n "$from" ]; then
  [ -e "$from" ] || usage_error "--from $from: no such file"
  [ -f "$from" ] || usage_error "--from $from: not a file"
  [ -r "$from" ] || usage_error "--from $from: cannot be read"
  from=$(cd "$(dirname "$from")" && pwd)/$(basename "$from")
else
  ncu=${NCU:-ncu}
  nvidia-smi -L >/dev/null 2>&1 ||
    usage_error "no GPU (nvidia-smi fails): run on a machine with one, or fit an earlier run with --from RUN.json"
  command -v "$ncu" >/dev/null 2>&1 || usage_error "no Nsight Compute: $ncu not found (put ncu on PATH, or set NCU)"
  if [ -n "${CUDACXX:-}" ]; then
    command -v "$CUDACXX" >/dev/null 2>&1 || usage_error "no nvcc: CUDACXX=$CUDACXX is no executable"
  elif ! command -v nvcc >/dev/null 2>&1; then
    [ -x /usr/local/cuda/bin/nvcc ] || usage_error "no nvcc: put the CUDA toolkit's bin on PATH (or set CUDACXX)"
    export CUDACXX=/usr/local/cuda/bin/nvcc
  fi
fi

cd "$root"
start=$(date +%s)
log=${TMPDIR:-/tmp}/calibrate_gpu_$name.log
: > "$log"
stage() { echo "calibrate_gpu: [$1/3] $2 ($(( $(date +%s) - start )) s)"; }
# A stage's own output goes to the log; where it fails, its last lines and the log's name are said on stderr.
logged() {
  local rc=0
  "$@" >> "$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    tail -n 20 "$log" >&2
    echo "calibrate_gpu.sh: failed (exit $rc): $*; the whole output: $log" >&2
    exit $rc
  fi
}
bench=lab/calibration/results/${name}_microbench.json
order=lab/calibration/results/${name}_dram_order.json
split=lab/calibration/results/${name}_split_sectors.json
shapes=lab/calibration/results/${name}_block_shapes.json
chain=lab/calibration/results/${name}_chain_loads.json
report=lab/calibration/results/${name}_calibration_report.txt
profile=model/devices/$name.json

if [ -z "$from" ]; then
  build=${MEMSIM_BUILD_DIR:-build-gpu}
  export MEMSIM_BUILD_DIR=$build  # run_calibration.sh builds memsim-microbench in the same tree
  stage 1 "configuring, building memsim-microbench and memsim-calibrate in $build (CUDA arch ${MEMSIM_CUDA_ARCH:-90})"
  # The configuration run_calibration.sh gives, so that it finds nothing to rebuild.
  # shellcheck disable=SC2086  # MEMSIM_CMAKE_ARGS is a list of arguments
  logged cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=ON -DMEMSIM_BUILD_BENCHMARKS=OFF \
    -DMEMSIM_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${MEMSIM_CUDA_ARCH:-90}" ${MEMSIM_CMAKE_ARGS:-}
  logged cmake --build "$build" -j "$(nproc)" --target memsim-microbench memsim-calibrate
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  stage 2 "running the microbenchmarks on the $gpu, then ncu on the issue benchmarks"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  logged bash lab/calibration/run_calibration.sh "$work"
  cp "$work/microbench.json" "$bench"
  cp "$work/issue_ncu.csv" "lab/calibration/results/${name}_issue_ncu.csv"
  cp "$work/dram_order.json" "$order"
  cp "$work/split_sectors.json" "$split"
  cp "$work/block_shapes.json" "$shapes"
  cp "$work/chain_loads.json" "$chain"
else
  build=${MEMSIM_BUILD_DIR:-build}
  stage 1 "building memsim-calibrate in $build (no GPU: the run is $from)"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086
    logged cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=OFF \
      -DMEMSIM_BUILD_BENCHMARKS=OFF ${MEMSIM_CMAKE_ARGS:-}
  fi
  logged cmake --build "$build" --target memsim-calibrate
  stage 2 "nothing to measure: fitting $from"
  [ "$from" -ef "$bench" ] || cp "$from" "$bench"
fi

# The DRAM order and split-sector runs where there are some (an older run with --from may have none: the
# profile then keeps the base's costs for them). With split runs, two steps: the DRAM order's costs first,
# from the runs that isolate them, then held while the split runs join the rest.
runs=(--microbench "$bench")
[ -f "$order" ] && runs+=(--microbench "$order")
[ -f "$shapes" ] && runs+=(--microbench "$shapes")
[ -f "$chain" ] && runs+=(--microbench "$chain")
stage 3 "fitting the constants from base $base, then predicting the suite kernels the run timed (never fitted)"
{
  echo "# The fit of $profile by memsim-calibrate (scripts/calibrate_gpu.sh $name, $(date -u +%Y-%m-%dT%H:%M:%SZ),"
  echo "# revision $(git rev-parse --short HEAD 2>/dev/null || echo unknown)); reproduce from the repository root:"
  if [ -f "$split" ]; then
    echo "#   $build/lab/calibration/memsim-calibrate ${runs[*]} --base $base --hold block_us --out ORDER.json"
    echo "#   $build/lab/calibration/memsim-calibrate ${runs[*]} --microbench $split --base ORDER.json --hold block_us \\"
    echo "#     --hold scattered_read_ps_per_byte --hold scattered_write_ps_per_byte --out $profile --holdout"
    echo "# (the first step's report is not kept; this is the second's)"
  else
    echo "#   $build/lab/calibration/memsim-calibrate ${runs[*]} --base $base --hold block_us --out $profile --holdout"
  fi
} > "$report"
# block_us is held at the base's value (0 in the calibrated profiles): with the block launch rate and the
# drain measured (the block-shape runs), the tiled copies cannot part a fixed hold a block from the drain, and
# the fit puts it at 0 from some starts and 0.17 us from others.
fit_base=$base hold=(--hold block_us) first_dir=""
if [ -f "$split" ]; then
  # The first step's profile in a directory of its own, under NAME: a profile read from a file is named after it.
  first_dir=$(mktemp -d)
  logged "$build/lab/calibration/memsim-calibrate" "${runs[@]}" --base "$base" "${hold[@]}" --out "$first_dir/$name.json"
  runs+=(--microbench "$split") fit_base=$first_dir/$name.json
  hold+=(--hold scattered_read_ps_per_byte --hold scattered_write_ps_per_byte)
fi
# The report keeps the last fit's output: the log's lines from here on.
from_line=$(($(wc -l < "$log") + 1))
logged "$build/lab/calibration/memsim-calibrate" "${runs[@]}" --base "$fit_base" ${hold[@]+"${hold[@]}"} --out "$profile" --holdout
tail -n +"$from_line" "$log" | sed -n '/^Calibration of /,$p' >> "$report"
[ -z "$first_dir" ] || rm -rf "$first_dir"
echo "calibrate_gpu: done in $(( $(date +%s) - start )) s: $bench, $profile, $report"
grep -E '^Fitted|^  all ' "$report" | cut -c1-160 | sed 's/^ */calibrate_gpu:   /'
