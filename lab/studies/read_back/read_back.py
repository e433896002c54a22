#!/usr/bin/env python3
"""The cost model's read-back of partly written lines against the DRAM reads Nsight Compute measured.

Where a kernel keeps many lines partly written at once, the H100's L2 evicts some and reads their written-in-
part sectors back from DRAM first (validate/results/l2_partial_lines.md). memsim predicts the fraction e of
the partial stores' bytes read back from the lines a block leaves open times the blocks resident at once, L
(model/cost.cpp; constants fitted on memsim-partial-lines' microbenchmarks, lab/calibration/fit_read_back.py).
This script sets e beside what the suite's runs read from DRAM beyond the input, over the output
((dram__bytes_read.sum - matrix bytes) / matrix bytes; every output byte of these kernels is a partial store's),
for the configurations larger than the L2 where memsim counts open lines or the GPU read back 2% or more, with
this memsim's time error on the same run. A check of the read-back model, not a fit: nothing is adjusted.

    lab/studies/read_back/read_back.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: memsim's report, reading files, the error rule)

USAGE = "lab/studies/read_back/read_back.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md"
DRAM_READ = "dram__bytes_read.sum"
PREDICTED = ("open_partial_lines", "read_back_fraction", "time_us")

MIN_MATRIX_BYTES = 64 << 20  # above the H100's 50 MiB L2: outputs are written back within the launch
SHOWN_READ_BACK = 0.02


def prediction(binary, cfg):
    report = memsim_run.memsim_json_for_config(binary, cfg)
    where = "memsim's report for %s" % cfg["kernel"]
    return {k: memsim_run.field(report, ("prediction", k), where) for k in PREDICTED}


def selected(path, run):
    """The records of run (read from path) larger than the L2 with DRAM reads measured, and how many records
    had DRAM reads at all."""
    records, with_dram = [], 0
    for i, r in enumerate(run["records"]):
        where = "%s: record %d" % (path, i)
        try:
            metrics = r.get("metrics") or {}
            read = metrics.get(DRAM_READ, {}).get("measured")
            if read is None:
                continue
            with_dram += 1
            c = r["config"]
            for key in ("kernel", "dtype", "matrix_bytes"):
                memsim_run.field(c, (key,), where + " config")
            for key in (("tile", "x"), ("tile", "y"), ("block", "x"), ("block", "y"), ("matrix", "width"),
                        ("matrix", "height")):
                if not isinstance(memsim_run.field(c, key, where + " config"), int):
                    raise memsim_run.Error("%s config has a non-integer %s" % (where, ".".join(key)))
            if not isinstance(read, (int, float)) or not isinstance(c["matrix_bytes"], (int, float)):
                raise memsim_run.Error("%s has a non-numeric %s or config.matrix_bytes" % (where, DRAM_READ))
            if c["matrix_bytes"] >= MIN_MATRIX_BYTES and r["measured"]["time_us"]:
                median = memsim_run.field(r, ("measured", "time_us", "median"), where)
                if not isinstance(median, (int, float)) or median <= 0:
                    raise memsim_run.Error("%s has no positive measured.time_us.median" % where)
                records.append(r)
        except (AttributeError, KeyError, TypeError):
            raise memsim_run.Error("%s is not a validation record (config, metrics, measured)" % where) from None
    return records, with_dram


def main():
    args = memsim_run.check_args(sys.argv, __doc__, USAGE, 2, 1 << 30)
    binary, paths = args[0], args[1:]
    memsim_run.check_binary(binary)
    records, with_dram = [], 0
    for path in paths:
        got, n = selected(path, memsim_run.read_validation_run(path))
        records += got
        with_dram += n
    if not with_dram:
        raise memsim_run.Error("no configuration with DRAM counts (%s measured by Nsight Compute) in %s: "
                               "give runs of memsim-validate --ncu" % (DRAM_READ, ", ".join(paths)))
    if not records:
        raise memsim_run.Error("no configuration with DRAM counts larger than the L2 (matrix of %d MiB or more) "
                               "in %s" % (MIN_MATRIX_BYTES >> 20, ", ".join(paths)))
    preds = memsim_run.parallel_map(lambda r: prediction(binary, r["config"]), records)
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
    memsim_run.main_guard(main)
