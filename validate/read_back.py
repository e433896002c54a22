#!/usr/bin/env python3
"""The cost model's read-back of partly written lines against the DRAM reads Nsight Compute measured.

Where a kernel keeps many lines partly written at once, the H100's L2 evicts some and reads their written-in-
part sectors back from DRAM first (validate/results/l2_partial_lines.md). memsim predicts the fraction e of
the partial stores' bytes read back from the lines a block leaves open times the blocks resident at once, L
(model/cost.cpp; constants fitted on memsim-partial-lines' microbenchmarks, model/calibration/fit_read_back.py).
This script sets e beside what the suite's runs read from DRAM beyond the input, over the output
((dram__bytes_read.sum - matrix bytes) / matrix bytes; every output byte of these kernels is a partial store's),
for the configurations larger than the L2 where memsim counts open lines or the GPU read back 2% or more, with
this memsim's time error on the same run. A check of the read-back model, not a fit: nothing is adjusted.

    validate/read_back.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md
"""
import json
import sys
from concurrent.futures import ThreadPoolExecutor

import memsim_run

MIN_MATRIX_BYTES = 64 << 20  # above the H100's 50 MiB L2: outputs are written back within the launch
SHOWN_READ_BACK = 0.02


def prediction(binary, cfg):
    extra = ["--tile", "%dx%d" % (cfg["tile"]["x"], cfg["tile"]["y"]), "--threads", "1"]
    report = memsim_run.memsim_json(binary, cfg["kernel"], cfg["dtype"],
                                    "%dx%d" % (cfg["block"]["x"], cfg["block"]["y"]),
                                    "%dx%d" % (cfg["matrix"]["width"], cfg["matrix"]["height"]), extra)
    return report["prediction"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary = sys.argv[1]
    records = []
    for path in sys.argv[2:]:
        with open(path) as f:
            for r in json.load(f)["records"]:
                read = r["metrics"].get("dram__bytes_read.sum", {}).get("measured")
                if r["config"]["matrix_bytes"] >= MIN_MATRIX_BYTES and read is not None and r["measured"]["time_us"]:
                    records.append(r)
    with ThreadPoolExecutor(max_workers=2) as pool:
        preds = list(pool.map(lambda r: prediction(binary, r["config"]), records))
    rows = []
    for r, p in zip(records, preds):
        c = r["config"]
        measured = (r["metrics"]["dram__bytes_read.sum"]["measured"] - c["matrix_bytes"]) / c["matrix_bytes"]
        if p["open_partial_lines"] <= 0 and measured < SHOWN_READ_BACK:
            continue
        error = p["time_us"] / r["measured"]["time_us"]["median"] - 1
        rows.append((c, p["open_partial_lines"], p["read_back_fraction"], measured, error))

    print("## Read-back of partly written lines: memsim against the DRAM reads measured\n")
    print("Runs: %s. memsim: `open_partial_lines` (L) and `read_back_fraction` (e) of this memsim's prediction; "
          "measured: (`dram__bytes_read.sum` - matrix bytes) / matrix bytes in the same run; time error: this "
          "memsim's time against the run's median.\n" % ", ".join("`%s`" % p for p in sys.argv[2:]))
    print("| element | configurations | e measured / memsim: mean | min | max | model low by 0.05 or more | "
          "their mean time error | model high by 0.05 or more | their mean time error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dtype in ("f16", "f32", "f64"):
        sub = [x for x in rows if x[0]["dtype"] == dtype and x[2] > 0]
        if not sub:
            continue
        ratios = [m / e for _, _, e, m, _ in sub]
        low = [err for _, _, e, m, err in sub if m - e >= 0.05]
        high = [err for _, _, e, m, err in sub if e - m >= 0.05]
        mean = lambda xs: "%+.1f%%" % (100 * sum(xs) / len(xs)) if xs else "–"
        print("| %s | %d | %.2f | %.2f | %.2f | %d | %s | %d | %s |" % (
            dtype, len(sub), sum(ratios) / len(ratios), min(ratios), max(ratios), len(low), mean(low), len(high),
            mean(high)))
    print("\n| kernel | dtype | matrix | block | L | e memsim | e measured | time error |")
    print("|---|---|---|---|---|---|---|---|")
    for c, lines, e, m, err in rows:
        print("| %s | %s | %dx%d | %dx%d | %.0f | %.3f | %.3f | %+.1f%% |" % (
            c["kernel"], c["dtype"], c["matrix"]["width"], c["matrix"]["height"], c["block"]["x"], c["block"]["y"],
            lines, e, m, 100 * err))


if __name__ == "__main__":
    main()
