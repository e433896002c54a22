#!/usr/bin/env bash
# On a GPU machine with this working tree (no network needed): builds memsim-validate with the CuTe transpose
# baseline and times `best` and `padded` beside their peers, in one run:
#   best and padded, blocks 16x16 and 32x8, at 8192x8192 and 16384x16384, f16, f32 and f64, every cell in three
#   rounds on fresh buffers, against the copy kernel, cudaMemcpy, cuBLAS geam and the CuTe transpose (the
#   Colfax tutorial's swizzled shared-memory design), outputs checked, then one Nsight Compute pass.
# Writes OUT_DIR/peers.json (the full record), peers.csv, peers.md, peers.ncu.csv, environment.txt and
# run_peers.log. About a minute of GPU work after the build.
#
#   validate/run_peers.sh OUT_DIR
#
# Needs: nvcc (PATH or /usr/local/cuda/bin), ncu, cmake and ninja; the CUTLASS headers in .deps/cutlass
# (scripts/install-cutlass.sh .deps/cutlass, on a machine with network); Boost, Eigen and nlohmann-json from
# the system or from the .deb files in .deps/ (unpacked to /tmp/deps, as validate/check_kernel_files.sh does).
# Environment: MEMSIM_BUILD_DIR (default build-peers), MEMSIM_CUDA_ARCH (default 90), NCU (default ncu),
# MEMSIM_GIT_REVISION (default: git describe of this checkout, else "unknown").
# Exit status: 0 when every check passed, 1 when one failed or the build did, 2 for bad arguments, missing
# headers or no GPU (before anything is built).
set -uo pipefail
usage_error() { echo "run_peers.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
  "") usage_error "no OUT_DIR (usage: validate/run_peers.sh OUT_DIR)" ;;
  -*) usage_error "unknown option $1 (usage: validate/run_peers.sh OUT_DIR)" ;;
esac
[ $# -eq 1 ] || usage_error "one OUT_DIR only, got $# arguments"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$1
nvidia-smi -L >/dev/null 2>&1 || usage_error "no GPU (nvidia-smi fails)"
[ -f .deps/cutlass/include/cute/tensor.hpp ] ||
  usage_error "no CUTLASS headers in .deps/cutlass (run scripts/install-cutlass.sh .deps/cutlass where there is network)"
err=$(mkdir -p "$out" 2>&1) || usage_error "cannot create OUT_DIR $out: ${err##*: }"
export PATH=$PATH:/usr/local/cuda/bin
ncu=${NCU:-ncu}
build=${MEMSIM_BUILD_DIR:-build-peers}
if [ -z "${MEMSIM_GIT_REVISION:-}" ]; then
  MEMSIM_GIT_REVISION=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
fi
export MEMSIM_GIT_REVISION

exec > >(tee "$out/run_peers.log") 2>&1
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  echo "git revision: $MEMSIM_GIT_REVISION"
  echo "CUTLASS headers: $(cat .deps/cutlass/VERSION 2>/dev/null || echo 'no VERSION file')"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,pstate --format=csv
  nvcc --version | tail -n 2
  "$ncu" --version | tail -n 1
} | tee "$out/environment.txt"

. validate/deps_prefix.sh || exit 2  # sets prefix: the .deb files' Boost 1.74, Eigen and nlohmann-json, where given
echo "== build ($(date -u +%H:%M:%S))"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_CUDA=ON -DMEMSIM_BUILD_TESTS=OFF \
  -DMEMSIM_BUILD_BENCHMARKS=OFF -DMEMSIM_PYTHON=OFF -DCMAKE_CUDA_ARCHITECTURES="${MEMSIM_CUDA_ARCH:-90}" \
  -DMEMSIM_CUTE=ON -DMEMSIM_CUTLASS_DIR="$root/.deps/cutlass" "${prefix[@]}" >/dev/null &&
  cmake --build "$build" -j "$(nproc)" --target memsim-validate || { echo "run_peers: FAILED: build"; exit 1; }

echo "== best and padded beside cudaMemcpy, cuBLAS and the CuTe transpose ($(date -u +%H:%M:%S))"
status=0
"$build/validate/memsim-validate" --out-dir "$out" --name peers --kernels best,padded --blocks 16x16,32x8 \
  --matrices 8192x8192,16384x16384 --dtypes f16,f32,f64 --rounds 3 --ncu --ncu-path "$ncu" >/dev/null || status=1
echo "== done ($(date -u +%H:%M:%S)), status $status; results in $out"
grep -h -A12 "^### Summary" "$out/peers.md" 2>/dev/null | grep -v "^  - " || true
exit $status
