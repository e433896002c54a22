#!/usr/bin/env python3
"""Writes the held-out sweep's H100 measurements of `padded` (f32, 8192x8192: lab/heldout/results/h100, 15
block shapes and tiles nobody fitted the model on) in Kernel Tuner 1.5's cache layout, as a tuning run over
block_size_x, block_size_y, tile_size_x and tile_size_y (Kernel Tuner's convention: the elements a thread covers
along x and y, so that a block covers block_size x tile_size) would have written them:
h100_padded_heldout.cache.json, the cache docs/python.md compares memsim's predictions with. "time" is the median of 50 timed launches (CUDA
events, ms), "times" the minimum, median and maximum. Standard library only.

    python3 python/examples/heldout_cache.py [RESULTS_DIR] [OUT]
"""
import glob
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y"]


def main(results, out):
    entries, device = {}, None
    # The runs are committed gzipped (NAME.json.gz); a run just copied off a GPU may not be yet.
    for path in sorted(glob.glob(os.path.join(results, "*.json")) + glob.glob(os.path.join(results, "*.json.gz"))):
        with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
            run = json.load(f)
        for r in run["records"]:
            c = r["config"]
            if (c["kernel"], c["dtype"], c["matrix"]["width"], c["matrix"]["height"]) != ("padded", "f32", 8192, 8192):
                continue
            device = run["context"]["device"]["name"]
            t = r["measured"]["time_us"]
            b, tile = c["block"], c["tile"]
            values = [b["x"], b["y"], tile["x"] // b["x"], tile["y"] // b["y"]]
            entry = dict(zip(KEYS, values))
            entry.update({"time": t["median"] / 1000, "times": [t["min"] / 1000, t["median"] / 1000, t["max"] / 1000],
                          "compile_time": 0, "verification_time": 0, "benchmark_time": 0,
                          "timestamp": run["context"]["date"]})
            entries[",".join(str(v) for v in values)] = entry
    if not entries:
        sys.exit(f"heldout_cache.py: no padded f32 8192x8192 record in {results}")
    header = {"device_name": device, "kernel_name": "padded", "problem_size": [8192, 8192], "tune_params_keys": KEYS,
              "tune_params": {k: sorted({e[k] for e in entries.values()}) for k in KEYS}, "objective": ["time"],
              "cache": {}}
    text = json.dumps(header, indent="")[:-3]
    for key in sorted(entries, key=lambda k: [int(v) for v in k.split(",")]):
        text += "\n" + json.dumps({key: entries[key]})[1:-1] + ","
    with open(out, "w", encoding="utf-8") as f:
        f.write(text[:-1] + "}\n}")
    print(f"{out}: {len(entries)} configurations measured on {device}")


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(HERE))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "lab/heldout/results/h100"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "h100_padded_heldout.cache.json"))
