#!/bin/sh
# The suite at 8192x8192 through the memsim command, one process per launch (docs/performance.md):
#   farm-bench -n 3 -- sh docs/sweep.sh build/app/memsim
for k in copy copy_shared naive naive_read coalesced padded diagonal coarse fine swizzle vec4 vec4_shared reg4x4; do
  for b in 32x8 16x16 8x32; do for d in f16 f32 f64; do
    "$1" --kernel $k --block $b --dtype $d --matrix 8192x8192 --format json >/dev/null 2>&1 || true
  done; done
done
