#!/usr/bin/env python3
"""memsim-split-lines' runs beside memsim's replay of each (split_lines_kernel.hpp, the program's own index
math), the warp instructions taken from the run's Nsight Compute row. Prints a Markdown table.

    terms.py RESULTS_DIR [--memsim BIN] [--device NAME]

RESULTS_DIR holds split_lines.json and split_lines.ncu.csv (run_split_lines.sh); the device profile defaults to
h100 or h200 by the run's GPU name.
"""
import argparse
import csv
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402

KERNEL = os.path.join(ROOT, "lab", "studies", "split_lines", "split_lines_kernel.hpp")
PATTERNS = ["whole lines", "shared lines, whole sectors", "4 split a line", "2 split a line", "1 split a line",
            "2 split every other line", "4 split one line in four", "1 split every other line",
            "4 split every other line"]


def split_shape(first_halves):
    """(split sectors a line, share of lines holding one) of a pattern's 4-line period."""
    sectors, lines = 0, 0
    for line in range(4):
        bits = first_halves >> (8 * line) & 0xFF
        n = sum(1 for k in range(4) if (bits >> (2 * k) & 1) != (bits >> (2 * k + 1) & 1))
        sectors += n
        lines += n > 0
    return sectors / 4, lines / 4


def ncu_rows(path):
    """Per kernel launch (in order): metric name -> value."""
    with memsim_run.open_text(path, "an Nsight Compute CSV") as f:
        rows = [line for line in f if line.startswith('"')]
    launches = {}
    for r in csv.DictReader(rows):
        launches.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--memsim", default=os.path.join(ROOT, "build", "app", "memsim"))
    ap.add_argument("--device")
    a = ap.parse_args()
    run = memsim_run.read_json(os.path.join(a.results, "split_lines.json"), "a memsim-split-lines run")
    ncu = ncu_rows(os.path.join(a.results, "split_lines.ncu.csv"))
    runs = memsim_run.field(run, ["runs"], "split_lines.json")
    if len(ncu) != len(runs):
        memsim_run.fail("%d runs but %d Nsight Compute launches" % (len(runs), len(ncu)))
    device = a.device or ("h200" if "H200" in run["device"] else "h100")

    def predict(item):
        r, n = item
        defines = ["--define", "SL_PATTERN=%d" % PATTERNS.index(r["pattern"]),
                   "--define", "SL_SCATTERED=%d" % (r["layout"] == "scattered"),
                   "--define", "SL_DISTANCE=%d" % r["distance"]]
        return memsim_run.memsim_report(a.memsim, ["--kernel-file", KERNEL] + defines + [
            "--matrix", "8192x8192", "--dtype", "f32", "--block", "256x1", "--tile", "2048x1", "--device", device,
            "--instructions", "%d" % n["smsp__inst_executed.sum"], "--format", "json"])["prediction"]

    preds = memsim_run.parallel_map(predict, list(zip(runs, ncu)))
    print("%s (%s), %s; memsim profile `%s`, the warp instructions from Nsight Compute.\n"
          % (run["device"], run["date"], "every output checked" if run["all_checks_passed"] else "CHECK FAILED",
             device))
    print("| pattern | layout | D | split sectors a line | lines holding one | measured µs | memsim µs | error |"
          " memsim split term µs | DRAM read / written MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r, n, p in zip(runs, ncu, preds):
        s, l = split_shape(int(r["first_halves"], 16))
        print("| %s | %s | %d | %.2f | %.2f | %.1f | %.1f | %+.1f%% | %.1f | %.0f / %.0f |"
              % (r["pattern"], r["layout"], r["distance"], s, l, r["median_us"], p["time_us"],
                 100 * (p["time_us"] / r["median_us"] - 1), p.get("split_sectors_us", 0),
                 n["dram__bytes_read.sum"] / 1e6, n["dram__bytes_write.sum"] / 1e6))


if __name__ == "__main__":
    memsim_run.main_guard(main)
