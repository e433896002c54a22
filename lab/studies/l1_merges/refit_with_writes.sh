#!/usr/bin/env bash
# The h100 calibration fitted again with its strided stores' measured L2 sector writes given (the pieces the L1
# merges charged as whole sectors), and the held-out sets a and w predicted with it, the writes given. A study:
# the profile it writes is not shipped (README.md). No GPU: committed runs only.
#   lab/studies/l1_merges/refit_with_writes.sh [BUILD_DIR]      (default: build; writes results/ here)
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
calibrate=$build/lab/calibration/memsim-calibrate memsim=$build/app/memsim
[ -x "$calibrate" ] && [ -x "$memsim" ] || { echo "refit_with_writes.sh: build memsim and memsim-calibrate in $build first" >&2; exit 2; }
r=lab/calibration/results out=lab/studies/l1_merges/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
add=lab/calibration/add_l2_write_sectors.py
python3 $add $r/h100_microbench.json $r/h100_narrow_lanes.json $r/h100_narrow_lanes.ncu.csv > "$tmp/microbench.json"
python3 $add $r/h100_narrow_lanes.json $r/h100_narrow_lanes.json $r/h100_narrow_lanes.ncu.csv > "$tmp/narrow_lanes.json"
# The committed fit's second step (its report's header, lab/calibration/results/h100_calibration_report.txt), from
# the committed profile: once as it was (the control), once with the writes given and the narrow-lanes runs added.
rest="--microbench $r/h100_dram_order.json --microbench $r/h100_block_shapes.json --microbench $r/h100_chain_loads.json
      --microbench $r/h100_split_sectors.json --base h100 --hold block_us --hold scattered_read_ps_per_byte
      --hold scattered_write_ps_per_byte"
# shellcheck disable=SC2086  # $rest is a list of arguments
"$calibrate" --microbench $r/h100_microbench.json $rest --out $out/h100_control.json > $out/h100_control_fit.txt
# shellcheck disable=SC2086
"$calibrate" --microbench "$tmp/microbench.json" --microbench "$tmp/narrow_lanes.json" $rest \
  --out $out/h100_refit_with_writes.json > $out/h100_refit_with_writes.txt
# The profile names its inputs: the two given the writes by their source, not this run's temporary folder.
sed -i "s|$tmp/microbench.json|h100_microbench.json with add_l2_write_sectors.py|; s|$tmp/narrow_lanes.json|h100_narrow_lanes.json with add_l2_write_sectors.py|" \
  $out/h100_refit_with_writes.json $out/h100_refit_with_writes.txt
cache=$(mktemp -d -p "$tmp")
# The held-out sets with each: the control's own figures are the ones to compare with (the committed profile has
# later single-term fits on top of this step, which neither refit repeats).
for profile in control refit_with_writes; do
  for set in "" _w; do
    MEMSIM_CACHE_DIR=$cache python3 lab/heldout/merged_pieces.py lab/heldout/results/h100${set}_ncu \
      --timed lab/heldout/results/h100$set --memsim "$memsim" --device $out/h100_$profile.json \
      > $out/h100${set}_${profile}_merged_pieces.txt
    echo "== $profile, set ${set:-a}"
    tail -n 5 $out/h100${set}_${profile}_merged_pieces.txt
  done
done
grep '^Fitted' $out/h100_control_fit.txt $out/h100_refit_with_writes.txt
