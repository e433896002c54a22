#!/usr/bin/env bash
# On a machine with the CUDA Toolkit (nvcc and cuobjdump): builds memsim alone and runs every example kernel
# file through --kernel-file, so that its instruction count comes from the compiled code of the same file
# (the "compiled" basis), cold and then from the cache. Usage: validate/check_kernel_files.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: check_kernel_files.sh OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH MEMSIM_CACHE_DIR=$out/cache
. validate/deps_prefix.sh || exit 2
cmake -S . -B build-kf -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_BUILD_TESTS=OFF -DMEMSIM_BUILD_BENCHMARKS=OFF \
      -DMEMSIM_CUDA=OFF -DMEMSIM_PYTHON=OFF "${prefix[@]}" >/dev/null
cmake --build build-kf -j "$(nproc)" --target memsim >/dev/null
for f in examples/*.hpp; do
  name=$(basename "$f" .hpp)
  for pass in cold warm; do
    start=$(date +%s%N)
    build-kf/app/memsim --kernel-file "$f" --matrix 8192x8192 --device h100 > "$out/$name.$pass.txt" 2>&1 || true
    end=$(date +%s%N)
    echo "$name $pass $(( (end - start) / 1000000 )) ms: $(grep -m1 'warp instructions' "$out/$name.$pass.txt")"
  done
done | tee "$out/summary.txt"
