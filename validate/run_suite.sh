#!/usr/bin/env bash
# Regenerates the committed GPU evidence (validate/results/) on a machine with an NVIDIA GPU, nvcc, ncu and
# compute-sanitizer, in one command:
#   1. builds memsim-validate (and the GPU tests when tests/gpu is part of the build);
#   2. checks the GPU's computed addresses against the replay's, access by access (--check-addresses);
#   3. runs the GPU tests (ctest -L gpu);
#   4. verifies every kernel's output at sizes that are no multiple of the tile, under compute-sanitizer memcheck;
#   5. times and profiles (Nsight Compute) the ragged sizes;
#   6. times and profiles the whole suite: f32 at 2048^2, 4096^2, 8192^2 and 8192x2048; f16 and f64 at 8192^2;
#   7. sweeps strides and base offsets of concurrent block traffic for partition-like imbalance (partition);
#   7b. times and profiles the fastest kernel, best, at 8192^2 and 16384^2 in f16, f32 and f64 over four blocks
#      against the copy kernel, cudaMemcpy and cuBLAS (best);
#   8. times the partial-sector store patterns of memsim-partial-lines, with their L2 counters, and the
#      calibration's strided stores at capped occupancy (partial).
# Each run writes NAME.json (the full record, one record per line), NAME.csv (not committed: --render writes it
# again, results/README.md), NAME.md and, with ncu, NAME.ncu.csv; SUMMARY.md gathers the tables and
# run_suite.log the whole console output.
#
#   validate/run_suite.sh [OUT_DIR]          (default: validate/results)
#
# Environment:
#   MEMSIM_BUILD_DIR    build directory (default build-gpu)
#   MEMSIM_CMAKE_ARGS   extra arguments for the configure step (e.g. -DCMAKE_PREFIX_PATH=...)
#   MEMSIM_CUDA_ARCH    CUDA architecture to build (default 90: H100/H200)
#   MEMSIM_STAGES       which steps to run (default "build addresses tests sanitizer odd suite best partition partial")
#   MEMSIM_VALIDATE     a memsim-validate binary to use instead of the one in the build directory
#   NCU, COMPUTE_SANITIZER   tool paths (default: found on PATH)
#   MEMSIM_GIT_REVISION the revision to record (default: git describe of this checkout, else "unknown")
# Exit status: 0 when every step passed, 1 otherwise (the reports say which check failed); 2, before anything
# is built or written, for an unknown option or stage, an empty MEMSIM_STAGES, or no GPU (nvidia-smi failing)
# where a step needs one (every step but build).
set -uo pipefail
usage_error() { echo "run_suite.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
  -*) usage_error "unknown option $1 (usage: validate/run_suite.sh [OUT_DIR]; --help for more)" ;;
esac
[ $# -le 1 ] || usage_error "one OUT_DIR at most, got $# arguments (usage: validate/run_suite.sh [OUT_DIR])"
all_stages="build addresses tests sanitizer odd suite best partition partial"
stages=" $all_stages "
if [ -n "${MEMSIM_STAGES+set}" ]; then
  # shellcheck disable=SC2206  # the words of MEMSIM_STAGES (unglobbed: set -f)
  set -f; named=($MEMSIM_STAGES); set +f
  [ ${#named[@]} -gt 0 ] || usage_error "MEMSIM_STAGES is empty: name the steps to run (of: $all_stages), or unset it"
  for s in "${named[@]}"; do
    [[ " $all_stages " == *" $s "* ]] || usage_error "unknown stage '$s' in MEMSIM_STAGES (the stages: $all_stages)"
  done
  stages=" ${named[*]} "
fi
gpu_stages=
for s in $stages; do [ "$s" = build ] || gpu_stages+=" $s"; done
if [ -n "$gpu_stages" ] && ! nvidia-smi -L >/dev/null 2>&1; then
  usage_error "no GPU (nvidia-smi fails) for the steps that need one (${gpu_stages# }): run on a machine with an NVIDIA GPU, or MEMSIM_STAGES=build"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Paths stay as given (relative to the repository root by default), so the reports name no machine's paths.
out=${1:-validate/results}
err=$(mkdir -p "$out" 2>&1) || usage_error "cannot create OUT_DIR $out: ${err##*: }"
build=${MEMSIM_BUILD_DIR:-build-gpu}
ncu=${NCU:-ncu}
sanitizer=${COMPUTE_SANITIZER:-compute-sanitizer}
if [ -z "${MEMSIM_GIT_REVISION:-}" ]; then
  MEMSIM_GIT_REVISION=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)  # pass it in where the tree has no .git
fi
export MEMSIM_GIT_REVISION
status=0

exec > >(tee "$out/run_suite.log") 2>&1
has() { [[ "$stages" == *" $1 "* ]]; }
step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
fail() { echo "run_suite: FAILED: $*"; status=1; }

step "environment"
date -u +%Y-%m-%dT%H:%M:%SZ
echo "git revision: $MEMSIM_GIT_REVISION"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,pstate \
  --format=csv || fail "nvidia-smi (is there a GPU?)"
nvcc --version 2>/dev/null | tail -n 2
"$ncu" --version 2>/dev/null | tail -n 1 || echo "ncu not found: the profiled steps will fail"
"$sanitizer" --version 2>/dev/null | tail -n 1 || echo "compute-sanitizer not found: the sanitizer step will fail"

if has build; then
  step "build"
  # shellcheck disable=SC2086  # MEMSIM_CMAKE_ARGS is a list of arguments
  # The architecture is named: with CMake >= 3.30 nvcc's own default (sm_75) would otherwise be built, and the
  # H100 would run JIT-compiled PTX instead of sm_90 code.
  # Only what the steps run is built: memsim-validate, and the GPU tests when tests/gpu is in the build.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=ON -DMEMSIM_STUDIES=ON -DMEMSIM_BUILD_BENCHMARKS=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="${MEMSIM_CUDA_ARCH:-90}" ${MEMSIM_CMAKE_ARGS:-} &&
    cmake --build "$build" -j "$(nproc)" --target memsim-validate || { fail "build"; exit 1; }
  if has partition; then cmake --build "$build" -j "$(nproc)" --target memsim-partition-sweep || fail "build of the sweep"; fi
  if has partial; then
    cmake --build "$build" -j "$(nproc)" --target memsim-partial-lines memsim-microbench || fail "build of memsim-partial-lines"
  fi
  if grep -q "memsim_gpu_test" "$build/build.ninja"; then
    cmake --build "$build" -j "$(nproc)" --target memsim_gpu_test || fail "build of the GPU tests"
  fi
fi
bin=${MEMSIM_VALIDATE:-$build/validate/memsim-validate}
[ -x "$bin" ] || { fail "no memsim-validate at $bin"; exit 1; }
validate() { "$bin" --out-dir "$out" "$@"; }

if has addresses; then
  step "GPU addresses against the replay (every kernel, dtype and block shape; ragged 200x136 too)"
  validate --check-addresses --kernels all --blocks 32x8,16x16,8x32,32x32 --matrices 256x192,200x136 \
    --dtypes f16,f32,f64 --name addresses >/dev/null || fail "address check"
fi

if has tests; then
  step "GPU tests (ctest -L gpu)"
  if [ -f "$build/CTestTestfile.cmake" ] && ctest --test-dir "$build" -N -L gpu | grep -q "Total Tests: [1-9]"; then
    ctest --test-dir "$build" -L gpu --output-on-failure || fail "GPU tests"
  else
    echo "no gpu-labelled tests in $build (tests/gpu is not part of this build)"
  fi
fi

if has sanitizer; then
  step "every kernel's output at ragged sizes, under compute-sanitizer memcheck"
  "$sanitizer" --tool memcheck --error-exitcode 99 --print-limit 20 --log-file "$out/sanitizer_odd.memcheck.log" \
    "$bin" --out-dir "$out" --check-only --kernels all --blocks 32x8,16x16,8x32,32x32 \
    --matrices 1000x3000,3000x1000,1001x777 --dtypes f16,f32,f64 --name sanitizer_odd >/dev/null
  rc=$?
  grep -h "ERROR SUMMARY" "$out/sanitizer_odd.memcheck.log" || echo "no memcheck summary in sanitizer_odd.memcheck.log"
  [ $rc -eq 0 ] || fail "compute-sanitizer run (status $rc: 99 = memcheck errors, 1 = wrong output)"
fi

if has odd; then
  step "ragged sizes timed and profiled"
  validate --kernels all --blocks 32x8,16x16 --matrices 1000x3000,1001x777 --dtypes f32 --ncu --ncu-path "$ncu" \
    --name odd_sizes >/dev/null || fail "ragged sizes"
fi

if has suite; then
  step "suite f32 at 2048^2, 4096^2, 8192^2, 8192x2048"
  validate --kernels all --blocks 32x8,16x16,8x32 --matrices 2048x2048,4096x4096,8192x8192,8192x2048 --dtypes f32 \
    --ncu --ncu-path "$ncu" --name suite_f32 >/dev/null || fail "suite f32"
  step "suite f16 and f64 at 8192^2"
  validate --kernels all --blocks 32x8,16x16,8x32 --matrices 8192x8192 --dtypes f16,f64 \
    --ncu --ncu-path "$ncu" --name suite_f16_f64 >/dev/null || fail "suite f16/f64"
fi

if has best; then
  step "best at 8192^2 and 16384^2, f16, f32 and f64, blocks 16x16, 32x8, 8x32, 32x32"
  validate --kernels best --blocks 16x16,32x8,8x32,32x32 --matrices 8192x8192,16384x16384 --dtypes f16,f32,f64 \
    --ncu --ncu-path "$ncu" --name best >/dev/null || fail "best"
fi

if has partition; then
  step "partition sweep: concurrent blocks streaming chunks at base + offset + block x stride"
  sweep=$build/lab/studies/partition_sweep/memsim-partition-sweep
  if [ -x "$sweep" ]; then
    "$sweep" --direction both --out "$out/partition_sweep.json" || fail "partition sweep"
  else
    fail "no memsim-partition-sweep at $sweep"
  fi
fi

if has partial; then
  step "partial-sector store patterns: lines partly written at once vs the cost of a line piece"
  lines=$build/lab/studies/partial_lines/memsim-partial-lines
  l2_write_metrics=lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write_lookup_miss.sum,dram__sectors_read.sum,dram__sectors_write.sum,gpu__time_duration.sum
  if [ -x "$lines" ]; then
    "$lines" >"$out/partial_lines.json" || fail "memsim-partial-lines"
    "$ncu" --clock-control none --csv --page raw --metrics "$l2_write_metrics" "$lines" --once 2>&1 |
      grep -v "^==" >"$out/partial_lines.ncu.csv" || fail "memsim-partial-lines under ncu"
    # The same counters for the store microbenchmarks the partial-sector costs are calibrated on.
    "$ncu" --clock-control none --csv --page raw -k regex:"strided|half_sector" --metrics "$l2_write_metrics" \
      "$build/lab/calibration/memsim-microbench" --stores-only 2>&1 | grep -v "^==" >"$out/partial_stores_microbench.ncu.csv" ||
      fail "memsim-microbench --stores-only under ncu"
    # Those benchmarks' strided stores with occupancy capped (1, 2, 4, 8 blocks/SM): timed, then counted.
    "$build/lab/calibration/memsim-microbench" --capped-stores >"$out/capped_stores.json" ||
      fail "memsim-microbench --capped-stores"
    "$ncu" --clock-control none --csv --page raw -k regex:strided --metrics "$l2_write_metrics" \
      "$build/lab/calibration/memsim-microbench" --capped-stores --stores-only 2>&1 | grep -v "^==" \
      >"$out/capped_stores.ncu.csv" || fail "memsim-microbench --capped-stores under ncu"
  else
    fail "no memsim-partial-lines at $lines"
  fi
fi

step "summary"
# The study programs' JSON one record per line too, as memsim-validate writes its own (results/README.md).
jsons=("$out"/*.json)
if [ -e "${jsons[0]}" ]; then
  python3 validate/record_lines.py "${jsons[@]}" || fail "validate/record_lines.py $out/*.json"
fi
{
  echo "# memsim GPU validation: summary of run_suite.sh"
  echo
  echo "Each section is the Markdown report of one run (NAME.md); NAME.json holds every number."
  for f in suite_f32 suite_f16_f64 best odd_sizes sanitizer_odd addresses; do
    [ -f "$out/$f.md" ] && { echo; echo "---"; echo; echo "<!-- $f -->"; cat "$out/$f.md"; }
  done
} >"$out/SUMMARY.md"
grep -h -A12 "^### Summary" "$out"/*.md 2>/dev/null | grep -v "^  - " || true
echo "results in $out; run_suite status $status"
exit $status
