#!/usr/bin/env bash
# Runs each fuzz target of a MEMSIM_FUZZ build for a bounded time, both at once (one core each), from its seed
# corpus in fuzz/corpus/<target> (and the shipped profiles for profile_fuzz): usage fuzz/run.sh BUILD_DIR
# [SECONDS, default 60]. New inputs go to a scratch corpus in the build directory, not into the repository; a
# crash, a failed check, a leak or an input taking over 10 s fails the run, its input left in
# BUILD_DIR/fuzz-artifacts/ and the end of its log printed. docs/testing.md says how to reproduce one. The
# seed is fixed (MEMSIM_FUZZ_SEED, default 1) so that CI explores the same inputs each run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
pids=()
targets=(cli profile)
for t in "${targets[@]}"; do
  bin="$build/fuzz/${t}_fuzz"
  [ -x "$bin" ] || { echo "fuzz/run.sh: no $bin: configure with -DMEMSIM_FUZZ=ON and build" >&2; exit 2; }
  work="$build/fuzz-corpus/$t"
  mkdir -p "$work"
  seeds=("fuzz/corpus/$t")
  max_len=4096  # a command line
  if [ "$t" = profile ]; then seeds+=(model/devices); max_len=16384; fi  # the H100's profile is 9 KB
  "$bin" -seed="${MEMSIM_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 \
    -dict="fuzz/$t.dict" -artifact_prefix="$artifacts/$t-" "$work" "${seeds[@]}" >"$build/fuzz-$t.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then
    echo "fuzz/run.sh: ${t}_fuzz: $(grep -E '^stat::number_of_executed_units' "$build/fuzz-$t.log" | awk '{print $2}') inputs in ${seconds} s, no finding"
  else
    status=1
    echo "fuzz/run.sh: ${t}_fuzz FAILED (log: $build/fuzz-$t.log, input in $artifacts/):" >&2
    tail -n 60 "$build/fuzz-$t.log" >&2
  fi
done
exit $status
