#!/usr/bin/env bash
# Regenerates every picture README.md and docs/ show, from committed data only (no GPU, no build):
#   plots/examples/validation/  validate/results/suite_f32.json + suite_f16_f64.json (the committed H100 runs):
#                               the scatter, the counters' errors and the f32 8192x8192 bandwidth
#   plots/examples/*.png        plots/examples/data/*.json, written by memsim --plot KIND --plot-out FILE.json
#
#   plots/gallery.sh                      # redraw from the committed data
#   plots/gallery.sh --data build/app/memsim   # first rewrite plots/examples/data/ with that memsim
#
# MEMSIM_PYTHON picks the interpreter (default /usr/bin/python3, where python3-matplotlib installs).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${MEMSIM_PYTHON:-/usr/bin/python3}
plot() { "$py" plots/memsim_plot.py "$@"; }
ex=plots/examples
data=$ex/data

if [ "${1:-}" = "--data" ]; then
  memsim=${2:?"--data needs the memsim binary, e.g. build/app/memsim"}
  "$memsim" -k coalesced --plot banks --plot-out $data/coalesced_banks.json
  "$memsim" -k padded --plot banks --plot-out $data/padded_banks.json
  "$memsim" -k naive --plot sectors --plot-out $data/sectors.json
  "$memsim" -k padded --device gtx280 -f json > $data/gt200_padded.json
  "$memsim" -k diagonal --device gtx280 -f json > $data/gt200_diagonal.json
elif [ $# -gt 0 ]; then
  echo "gallery.sh: unknown argument '$1' (gallery.sh [--data MEMSIM])" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plot validation validate/results/suite_f32.json validate/results/suite_f16_f64.json --out "$tmp" >/dev/null
mkdir -p $ex/validation
for f in validation_scatter validation_counters bandwidth_f32_8192x8192; do
  cp "$tmp/$f.png" $ex/validation/ && echo $ex/validation/$f.png
done
plot banks $data/coalesced_banks.json --out $ex/coalesced_banks.png
plot banks $data/padded_banks.json --out $ex/padded_banks.png
plot sectors $data/sectors.json --out $ex/sectors.png
# The whitepaper's GT200 story side by side: padded camps on one partition per window, diagonal spreads.
plot $data/gt200_padded.json $data/gt200_diagonal.json --what partitions --compare gt200_padded_vs_diagonal \
  --out $ex
rm -f $ex/gt200_padded_partitions.png $ex/gt200_diagonal_partitions.png  # drawn alone too; not shown
