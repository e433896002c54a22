#!/usr/bin/env bash
# Judges the model with one constant neutralised at a time, on the held-out sweep (lab/heldout/judge.py) and
# the judged suite (memsim-calibrate --holdout-validate), H100 and H200: what each constant does where no fit
# looked. Writes OUT_DIR/VARIANT_DEVICE_{heldout,suite}.txt; docs/history/model_notebook.md, "Terms that serve
# one kernel", reads them. About 5 minutes a variant on 2 cores.
#   lab/calibration/ablate.sh OUT_DIR [BUILD_DIR]
set -euo pipefail
usage() { echo "usage: lab/calibration/ablate.sh OUT_DIR [BUILD_DIR]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
cd "$(dirname "$0")/../.."
out=$1 build=${2:-build}
for tool in "$build/app/memsim" "$build/lab/calibration/memsim-calibrate"; do
  [ -x "$tool" ] || { echo "ablate.sh: no $tool (build first)" >&2; exit 2; }
done
mkdir -p "$out"
for variant in base one_warp_factor split_sectors sector_warp_factors; do
  devices="$out/devices_$variant"
  rm -rf "$devices" && cp -r model/devices "$devices"
  python3 - "$variant" "$devices" <<'PY'
import json, sys
variant, devices = sys.argv[1:]
for dev in ("h100", "h200"):
    path = "%s/%s.json" % (devices, dev)
    profile = json.load(open(path))
    cost = profile["cost"]
    if variant == "one_warp_factor":
        cost["read_back"]["one_warp_factor"] = 1
    elif variant == "split_sectors":
        cost["split_sector_ps"] = 0
    elif variant == "sector_warp_factors":
        cost["read_back"]["sector_warp_factors"] = [1, 1]
    json.dump(profile, open(path, "w"), indent=1)
PY
  for dev in h100 h200; do
    MEMSIM_DEVICE_DIR=$devices python3 lab/heldout/judge.py lab/heldout/results/$dev/*.json.gz \
      --memsim "$build/app/memsim" --device $dev >"$out/${variant}_${dev}_heldout.txt"
    prefix=""; [ $dev = h200 ] && prefix=h200_
    MEMSIM_DEVICE_DIR=$devices "$build/lab/calibration/memsim-calibrate" --base $dev --holdout-validate \
      validate/results/${prefix}suite_f32.json validate/results/${prefix}suite_f16_f64.json \
      validate/results/${prefix}suite_16384.json >"$out/${variant}_${dev}_suite.txt"
  done
  echo "ablate.sh: $variant done"
done
