#!/usr/bin/env bash
# Regenerates the hold-out reports of lab/calibration/ from the committed runs: each report's header names
# the memsim-calibrate commands that made it (lines "#   build/lab/calibration/memsim-calibrate ..."); this keeps the
# header, runs them from the repository root with the given build directory, and writes their output after
# it. Run after a new validation run or a change to the cost model:
#   lab/calibration/regenerate_holdouts.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -x "$build/lab/calibration/memsim-calibrate" ] || { echo "regenerate_holdouts.sh: no $build/lab/calibration/memsim-calibrate (build first)" >&2; exit 2; }
for report in lab/calibration/results/*holdout*.txt; do
  grep -q '^#   build/lab/calibration/memsim-calibrate ' "$report" || continue
  header=$(grep '^#' "$report")
  {
    printf '%s\n' "$header"
    grep '^#   build/lab/calibration/memsim-calibrate ' "$report" | sed 's/^#   build\///' | while read -r cmd; do
      # shellcheck disable=SC2086  # the command's words, as the header gives them
      "$build"/$cmd
    done
  } >"$report.new"
  mv "$report.new" "$report"
  echo "regenerated $report"
done
# The held-out sweep's judged reports (lab/heldout/README.md): every run predicted again by this build; the
# figures README.md and every report quote come from their "predicted here" lines (validate/figures.py).
# Sets b to k (h100_b/, h200_c/, ...) the same way, each judged alone, where the card ran it. "Predicted here" is
# memsim without the toolkit (the shipped table or the estimate), whatever this machine has: --no-compile, and
# an empty code cache, so that compiled code cached by earlier runs cannot change a report.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export MEMSIM_CACHE_DIR=$cache
for dev in h100 h200; do
  # Set a's runs in DEV/, every later set's in DEV_X/ or DEV_XY/ (one or two letters: not DEV_X_ncu/), in the order
  # of their letters.
  for dir in lab/heldout/results/$dev lab/heldout/results/${dev}_? lab/heldout/results/${dev}_??; do
    set=${dir#lab/heldout/results/$dev}
    ls "$dir"/*.json.gz >/dev/null 2>&1 || continue
    python3 lab/heldout/judge.py lab/heldout/results/$dev$set/*.json.gz --memsim "$build/app/memsim" --device $dev \
      --no-compile \
      --report lab/heldout/results/$dev${set}_judged.txt >/dev/null
    echo "regenerated lab/heldout/results/$dev${set}_judged.txt"
  done
done
# The instruction estimate against Nsight Compute on the sets run under it (h100_ncu/, h100_b_ncu/, ...): each
# *_instructions.txt keeps its first part (the compiled counts, as the GPU run predicted them) and gets the
# estimate's lines again, after "(without cuobjdump, the estimate:)"; a set with ncu runs and no file gets one
# with the estimate's lines alone.
for ncu in lab/heldout/results/*_ncu; do
  ls "$ncu"/*.json.gz >/dev/null 2>&1 || continue
  name=$(basename "$ncu" _ncu) dev=${name%%_*}
  file=lab/heldout/results/${name}_instructions.txt
  report=$(mktemp)
  # The same run writes the DRAM bytes against Nsight Compute's, and the time with the bytes read given.
  python3 lab/heldout/judge.py "$ncu"/*.json.gz --memsim "$build/app/memsim" --device "$dev" --no-compile \
    --report "$report" --dram-report lab/heldout/results/${name}_dram.txt >/dev/null
  {
    if [ -f "$file" ] && grep -q '^(without cuobjdump' "$file"; then sed '/^(without cuobjdump/,$d' "$file"; fi
    echo "(without cuobjdump, the estimate:)"
    sed -n '/^  warp instructions/,$p' "$report" | grep '^ ' | sed -n '1,5p'
  } >"$file.new"
  rm -f "$report"
  mv "$file.new" "$file"
  echo "regenerated $file and lab/heldout/results/${name}_dram.txt"
done
# Set a again with the toolkit (memsim as a user with the CUDA Toolkit runs it: each configuration's code compiled
# here and counted along its paths): *_judged_toolkit.txt. Only where nvcc, cuobjdump and nvdisasm are found
# (memsim's own search: MEMSIM_NVCC, else PATH, else /usr/local/cuda/bin); elsewhere the committed reports stay.
# A fresh code cache, so that the reports hold this build's compile of every configuration.
toolkit_cache=$(mktemp -d)
if out=$(MEMSIM_CACHE_DIR=$toolkit_cache "$build/app/memsim" --kernel naive --dtype f32 --block 8x16 --tile 16x16 \
           --format json 2>/dev/null) && grep -q '"instructions_basis": "counted along the compiled SASS paths' <<<"$out"; then
  for dev in h100 h200; do
    ls lab/heldout/results/$dev/*.json.gz >/dev/null 2>&1 || continue
    MEMSIM_CACHE_DIR=$toolkit_cache python3 lab/heldout/judge.py lab/heldout/results/$dev/*.json.gz \
      --memsim "$build/app/memsim" --device $dev --report lab/heldout/results/${dev}_judged_toolkit.txt >/dev/null
    echo "regenerated lab/heldout/results/${dev}_judged_toolkit.txt"
  done
else
  echo "kept lab/heldout/results/*_judged_toolkit.txt (no toolkit that memsim compiles with here)"
fi
rm -rf "$toolkit_cache"
