#!/usr/bin/env bash
# On a GPU machine with the CUDA Toolkit: builds memsim-validate and runs every example kernel file through
# `memsim-validate --kernel-file` beside the suite's copy and padded kernels, 8192x8192 in f32 and f64, with
# Nsight Compute counts (where ncu is found), then checks the GPU's addresses against the replay's at
# 2048x2048. The GPU plugin is compiled cold by the first run of each file and read from the cache by the
# next. Results (NAME.json/.csv/.md/.ncu.csv and a log per run, summary.txt) go under OUTDIR.
# Usage: validate/check_kernel_files_gpu.sh OUTDIR   (MEMSIM_BUILD_DIR: the build folder, default build-kfgpu)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: check_kernel_files_gpu.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH=/usr/local/cuda/bin:$PATH MEMSIM_CACHE_DIR=$out/cache
. validate/deps_prefix.sh || exit 2
build=${MEMSIM_BUILD_DIR:-build-kfgpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMEMSIM_BUILD_TESTS=OFF -DMEMSIM_BUILD_BENCHMARKS=OFF \
      -DMEMSIM_CUDA=ON -DMEMSIM_PYTHON=OFF "${prefix[@]}" > "$out/cmake.log" 2>&1
cmake --build "$build" -j "$(nproc)" --target memsim-validate >> "$out/cmake.log" 2>&1
bin=$build/validate/memsim-validate
ncu=()
if command -v ncu >/dev/null 2>&1; then ncu=(--ncu --ncu-path "$(command -v ncu)"); else echo "no ncu: runs without --ncu"; fi

status=0
run() {  # NAME ARGS...: one memsim-validate run, its log and exit status
  local name=$1
  shift
  local start end rc=0
  start=$(date +%s%N)
  "$bin" "$@" --out-dir "$out" --name "$name" > "$out/$name.log" 2>&1 || rc=$?
  end=$(date +%s%N)
  echo "$name: exit $rc, $(( (end - start) / 1000000 )) ms"
  [ "$rc" -eq 0 ] || status=1
}

for f in examples/*.hpp; do
  name=$(basename "$f" .hpp)
  shape=()
  # row_per_thread is written for one warp a block over a 32x32 tile (its header says so).
  [ "$name" = row_per_thread ] && shape=(--blocks 32x1 --tile 32x32)
  # The first run compiles the GPU plugin (cold); --ncu's child run loads it from the cache.
  run "$name" --kernel-file "$f" --kernels copy,padded --matrices 8192x8192 --dtypes f32,f64 "${shape[@]}" "${ncu[@]}"
  run "$name.addresses" --kernel-file "$f" --kernels copy,padded --matrices 2048x2048 --dtypes f32,f64 \
      "${shape[@]}" --check-addresses
done 2>&1 | tee "$out/runs.txt"

# One line a record: output check, bandwidth beside cudaMemcpy and the copy kernel, ncu's status.
python3 - "$out" <<'EOF' | tee "$out/summary.txt"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for p in sorted(out.glob("*.json")):
    run = json.loads(p.read_text())
    if run.get("schema") != "memsim-validate/1":
        continue
    for k in run.get("context", {}).get("kernel_files", []):
        print(f"{p.stem}: {k['kernel']} from {k['file']} {k['defines']}: nvcc {k['nvcc']} {k['arch']}, "
              f"{'cached' if k['cached'] else 'compiled in %.1f s' % k['compile_seconds']}")
    for r in run.get("records", []):
        m = r.get("measured", {})
        bw = m.get("effective_bandwidth_gbs")
        frac = m.get("fraction_of_memcpy")
        check = (r.get("output_check") or {}).get("passed")
        print(f"  {r['id']}: output {'ok' if check else 'WRONG' if check is False else '-'}"
              + (f", {bw:.0f} GB/s, {frac:.3f} of cudaMemcpy" if bw and frac else "")
              + (f", ncu {m['ncu_kernel_name']}" if m.get("ncu_kernel_name") else ""))
    for c in run.get("address_checks", []):
        print(f"  {c.get('id', c)}: addresses {'identical' if c.get('passed') else 'DIFFER'}")
    if "ncu" in run:
        print(f"  ncu: {run['ncu'].get('status')}")
EOF
grep -q "exit [^0]" "$out/runs.txt" && status=1
exit $status
