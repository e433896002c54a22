#!/usr/bin/env bash
# The held-out sweep on a GPU machine (lab/heldout/README.md). Stages, in order, on one machine:
#   run_heldout.sh build                 configure and build memsim, memsim-validate (with the sweep's static
#                                        shapes) and memsim-code-counts in build-dev/
#   run_heldout.sh counts OUT            every configuration's compiled paths and the estimate's: OUT/code_counts.json
#   run_heldout.sh time PROFILE OUT [FIRST LAST]  time, check and predict the sweep's runs FIRST..LAST
#   run_heldout.sh ncu PROFILE OUT [FIRST LAST]   Nsight Compute counts of those runs at the set's first matrix
# time and ncu need no build of the set's shapes: memsim-validate compiles a shape its build lacks when it starts
# (docs/validation.md), so MEMSIM_VALIDATE=PATH runs them with any memsim-validate (set x ran so).
# HELDOUT_SET=b runs the second set (heldout.py --set b) instead, its shapes in extra_static_shapes_b.inc.
# HELDOUT_SET="b c" builds one memsim-validate with both sets' shapes (one build for both on a machine);
# time and ncu then take one set each.
# Debian's Boost.Program_options, Eigen and nlohmann-json may come as .deb files in .deps/ (unpacked to
# /tmp/deps where the machine lacks them).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build-dev
export PATH=/usr/local/cuda/bin:$PATH MEMSIM_CACHE_DIR=$PWD/$build/code-cache
# The suite's headers the shapes compile from: this tree's, wherever the binary was built.
export MEMSIM_KERNEL_DIR=${MEMSIM_KERNEL_DIR:-$PWD}
validate=${MEMSIM_VALIDATE:-$build/validate/memsim-validate}
stage=${1:?stage}
set_=${HELDOUT_SET:-a}
inc=$PWD/lab/heldout/extra_static_shapes.inc list=lab/heldout/heldout_configs.txt
if [ "$set_" != a ]; then inc=$PWD/lab/heldout/extra_static_shapes_$set_.inc list=lab/heldout/heldout_${set_}_configs.txt; fi
case $stage in
  build)
    . validate/deps_prefix.sh || exit 2  # sets prefix: the .deb files' Boost 1.74, Eigen and nlohmann-json, where given
    if [ "${set_// /}" != "$set_" ]; then
      # Several sets: each one's shapes into one list of the X(...) lines (each ends in a continuation).
      inc=$PWD/$build/extra_static_shapes_sets.inc
      mkdir -p $build && printf '// Sets %s of lab/heldout/heldout.py.\n#define MEMSIM_EXTRA_STATIC_SHAPES(X) \\\n' "$set_" > "$inc"
      for s in $set_; do
        python3 lab/heldout/heldout.py --set "$s" --inc "$build/set_$s.inc" --list "$build/set_$s.txt"
        grep '^  X(' "$build/set_$s.inc" >> "$inc"
      done
      echo >> "$inc"
    else
      python3 lab/heldout/heldout.py --set "$set_" --inc "$inc" --list "$list"
    fi
    cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_BUILD_TESTS=OFF -DMEMSIM_BUILD_BENCHMARKS=OFF \
          -DMEMSIM_EXTRA_STATIC_SHAPES="$inc" "${prefix[@]}" >/dev/null
    cmake --build $build -j "$(nproc)" --target memsim memsim-validate memsim-code-counts
    ;;
  counts)
    out=${2:?OUT}
    $build/lab/calibration/memsim-code-counts --table "$list" > "$out/code_counts.json"
    ;;
  time|ncu)
    profile=${2:?PROFILE} out=${3:?OUT} first=${4:-1} last=${5:-1000}
    mkdir -p "$out/runs"
    i=0
    while read -r line; do
      i=$((i + 1)); [ $i -ge "$first" ] || continue; [ $i -le "$last" ] || break
      name=${line##*--name } args=${line%% --name *}
      if [ "$stage" = time ]; then
        # shellcheck disable=SC2086
        "$validate" $args --profile "$profile" --out-dir "$out/runs" --name "${profile}_$name" ||
          echo "run failed: $line"
      else
        # Nsight Compute at the set's first matrix only (8192x8192 for set a): its counts are per configuration.
        args=$(sed -E 's/--matrices ([^ ,]+)[^ ]*/--matrices \1/' <<<"$args")
        # shellcheck disable=SC2086
        "$validate" $args --profile "$profile" --ncu --reps 5 --out-dir "$out/runs" \
          --name "${profile}_${name}_ncu" || echo "run failed: $line"
      fi
    done < <(python3 lab/heldout/heldout.py --set "$set_" --commands x)
    ;;
  *) echo "run_heldout.sh: unknown stage $stage" >&2; exit 2 ;;
esac
