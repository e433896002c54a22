#!/usr/bin/env python3
"""memsim-split-lines' runs beside memsim's replay of each (split_lines_kernel.hpp, the program's own index
math), the warp instructions taken from the run's Nsight Compute row. Prints a Markdown table.

    terms.py RESULTS_DIR [--memsim BIN] [--device NAME]

RESULTS_DIR holds split_lines.json and split_lines.ncu.csv (run_split_lines.sh); the device profile defaults to
h100 or h200 by the run's GPU name. Runs of both lane widths: 4-byte lanes (an 8192x8192 f32 replay; runs from
before the 2-byte variant have no lane_bytes and are these) and 2-byte lanes (lane_bytes 2: 16384x8192 f16,
SL_LANE_BYTES=2), whose rows name the pattern "2-byte lanes, PATTERN".
"""
import argparse
import csv
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402

KERNEL = os.path.join(ROOT, "lab", "studies", "split_lines", "split_lines_kernel.hpp")
PATTERNS = ["whole lines", "shared lines, whole sectors", "4 split a line", "2 split a line", "1 split a line",
            "2 split every other line", "4 split one line in four", "1 split every other line",
            "4 split every other line"]
# split_lines_map.hpp's lanes2::kPatterns, in its order (SL_PATTERN is the index).
PATTERNS_2 = ["whole lines", "shared lines, whole sectors", "4 split a line, 8/24", "4 split a line, 16/16",
              "2 split a line, 8/24", "1 split a line, 8/24", "1 split every other line, 8/24",
              "4 split one line in four, 8/24", "2 split a line, 16/16 and 8/24"]
# Per lane width: the patterns, the JSON's mask field, the mask's bits a sector, memsim's matrix and dtype.
LANES = {4: (PATTERNS, "first_halves", 2, "8192x8192", "f32"),
         2: (PATTERNS_2, "first_quarters", 4, "16384x8192", "f16")}
MAP = os.path.join(ROOT, "lab", "studies", "split_lines", "split_lines_map.hpp")


def header_masks():
    """{lane bytes: [mask of each pattern, in order]} as split_lines_map.hpp (the replay's index math) has them:
    its two kPatterns tables, the 4-byte one first."""
    text = memsim_run.read_text(MAP, "split_lines_map.hpp")
    tables = re.findall(r"constexpr Pattern kPatterns\[\] = \{(.*?)\n\};", text, re.S)
    masks = [[(n, int(m, 16)) for n, m in re.findall(r'\{"([^"]+)", (0x[0-9a-fA-F]+)u(?:ll)?\}', t)] for t in tables]
    if len(masks) != 2 or [[n for n, _ in t] for t in masks] != [PATTERNS, PATTERNS_2]:
        raise memsim_run.Error("%s's pattern tables are not the ones terms.py knows" % MAP)
    return {4: [m for _, m in masks[0]], 2: [m for _, m in masks[1]]}


def lane_bytes(r):
    """A run's lane width: its lane_bytes, 4 for runs from before the 2-byte variant (which have none)."""
    lanes = r.get("lane_bytes", 4)
    if lanes not in LANES:
        raise memsim_run.Error("run %r has lane_bytes %r (expected 4 or 2)" % (r.get("name"), lanes))
    return lanes


def pattern_index(r, masks):
    """SL_PATTERN for a run: its pattern's index for its lane width, the run's mask checked to be the header's
    (a header edited since the run would replay another pattern)."""
    lanes = lane_bytes(r)
    patterns, field = LANES[lanes][:2]
    name, mask = memsim_run.field(r, ["pattern"], "split_lines.json"), memsim_run.field(r, [field], "split_lines.json")
    if name not in patterns:
        raise memsim_run.Error("run %r: pattern %r is none of split_lines_map.hpp's with %d-byte lanes"
                               % (r.get("name"), name, lanes))
    i = patterns.index(name)
    if int(mask, 16) != masks[lanes][i]:
        raise memsim_run.Error("run %r: %s %s, but split_lines_map.hpp has 0x%x: the header changed since the run"
                               % (r.get("name"), field, mask, masks[lanes][i]))
    return i


def split_shape(mask, lanes=4):
    """(split sectors a line, share of lines holding one) of a pattern's 4-line period: mask is first_halves
    (4-byte lanes, 2 bits a sector) or first_quarters (2-byte lanes, 4 bits a sector)."""
    per = LANES[lanes][2]
    whole = (1 << per) - 1
    sectors, lines = 0, 0
    for line in range(4):
        bits = mask >> (4 * per * line) & ((1 << 4 * per) - 1)
        n = sum(1 for k in range(4) if (bits >> (per * k) & whole) not in (0, whole))
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
    masks = header_masks()

    def predict(item):
        r, n = item
        lanes = lane_bytes(r)
        matrix, dtype = LANES[lanes][3:]
        defines = ["--define", "SL_PATTERN=%d" % pattern_index(r, masks),
                   "--define", "SL_SCATTERED=%d" % (r["layout"] == "scattered"),
                   "--define", "SL_DISTANCE=%d" % r["distance"]]
        if lanes == 2:  # the 4-byte runs' memsim calls as before the 2-byte variant
            defines += ["--define", "SL_LANE_BYTES=2"]
        return memsim_run.memsim_report(a.memsim, ["--kernel-file", KERNEL] + defines + [
            "--matrix", matrix, "--dtype", dtype, "--block", "256x1", "--tile", "2048x1", "--device", device,
            "--instructions", "%d" % n["smsp__inst_executed.sum"], "--format", "json"])["prediction"]

    preds = memsim_run.parallel_map(predict, list(zip(runs, ncu)))
    print("%s (%s), %s; memsim profile `%s`, the warp instructions from Nsight Compute.\n"
          % (run["device"], run["date"], "every output checked" if run["all_checks_passed"] else "CHECK FAILED",
             device))
    print("| pattern | layout | D | split sectors a line | lines holding one | measured µs | memsim µs | error |"
          " memsim split term µs | DRAM read / written MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r, n, p in zip(runs, ncu, preds):
        lanes = lane_bytes(r)
        s, l = split_shape(int(r[LANES[lanes][1]], 16), lanes)
        print("| %s | %s | %d | %.2f | %.2f | %.1f | %.1f | %+.1f%% | %.1f | %.0f / %.0f |"
              % (("2-byte lanes, " if lanes == 2 else "") + r["pattern"], r["layout"], r["distance"], s, l,
                 r["median_us"], p["time_us"],
                 100 * (p["time_us"] / r["median_us"] - 1), p.get("split_sectors_us", 0),
                 n["dram__bytes_read.sum"] / 1e6, n["dram__bytes_write.sum"] / 1e6))


if __name__ == "__main__":
    memsim_run.main_guard(main)
