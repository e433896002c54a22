#!/usr/bin/env python3
"""Fit the cost of lines written in whole sectors over rounds on memsim-held-open's whole-sector runs alone.

    fit_whole_lines.py MEMSIM PROFILE RUNS [--also RUNS ...] [--ncu CSV] [--report FILE] [--write]

RUNS is memsim-held-open's JSON of the whole-sector runs (held_open.cu, "Whole sectors held open": one warp a
line, a line's four sectors one a round, or two a round; and the u64 runs of two warps a line at 8 rows a
request). Each run is replayed by memsim itself (its addresses as a kernel file, held_open_kernel.hpp, through
fit_held_open_time.py's predict), with PROFILE's constants, which charge such lines nothing. The replay counts U, the
lines open at once, two ways (sim/partial_lines.hpp): by every whole sector a line holds over rounds
("whole_lines_open_at_once") or by the sectors written without their 64-byte partner in the same round alone
("lone_sector_lines_open_at_once"). For each count, the fit finds the law

    extra DRAM time = e x (the counted sectors' bytes) x ps_per_byte,   e = 1 - exp(-(U / lines)^exponent)

that minimises the squared log error of the runs' times, the extra time joining the DRAM term before the terms
combine (model/cost.cpp). The report gives each run's rounds between a line's pieces too
(whole_line_rounds_apart), which `naive` stretches to a row of its tile's steps. The count whose fit leaves the smaller error is the one kept: a choice made on these
runs alone. --ncu adds Nsight Compute's DRAM bytes (read beyond the input, written, x the output) to the report.
--also adds the whole-sector runs (one warp a line, "P=1") of another memsim-held-open JSON of the same GPU (the
16-steps-apart runs of 2026-12-07, for one). Each run is predicted with PROFILE less any cost.whole_lines it
carries, so the fit starts from no cost whatever PROFILE holds. --write puts the kept law into PROFILE's
cost.whole_lines (the rest of the file as it was).
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_held_open_time import combined, golden, predict  # noqa: E402

COUNTS = {"whole": ("whole_lines_open_at_once", "whole_sectors_held_over_rounds"),
          "lone": ("lone_sector_lines_open_at_once", "lone_sectors_held_over_rounds")}


def ncu_bytes(path):
    """Per kernel launch in --once order: (dram bytes read, written)."""
    rows = {}
    order = []
    with open(path) as f:
        for row in csv.DictReader(f):
            key = row["ID"]
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return [rows[k] for k in order]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("memsim")
    ap.add_argument("profile")
    ap.add_argument("runs")
    ap.add_argument("--also", action="append", default=[], help="another RUNS JSON: its P=1 runs join the fit")
    ap.add_argument("--ncu")
    ap.add_argument("--report")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    base = json.load(open(a.profile))
    doc = json.load(open(a.runs))
    every = list(doc["runs"])
    for path in a.also:
        other = json.load(open(path))
        if other["device"] != doc["device"]:
            raise SystemExit("fit_whole_lines.py: %s ran on an %s, %s on an %s" % (path, other["device"], a.runs,
                                                                                 doc["device"]))
        every += [r for r in other["runs"] if " P=1 " in r["name"]]
    # memsim's block is 32 x 8 with a warp a thread row: a block's rows (R x 8/P) must fill it.
    runs = [r for r in every
            if r.get("rows_per_request", 32) * (8 // r["warps_a_line"]) * (r["lines_a_row"] if r.get("rows_apart") else 1)
            % 32 == 0]
    left_out = [r["name"] for r in every if r not in runs]
    bare = json.loads(json.dumps(base))
    bare["cost"].pop("whole_lines", None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(bare, f)
        bare_path = f.name
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    try:
        preds = list(pool.map(lambda r: predict(a.memsim, bare_path, r), runs))
    finally:
        os.unlink(bare_path)
    p = base["cost"]["overlap_p"]
    out_bytes = 256 << 20
    sector = 32

    def time(q, extra_dram_us):
        terms = dict(q["terms_us"])
        terms["DRAM bandwidth"] += extra_dram_us
        return combined(terms, p, terms["L2 partial-sector stores"])

    def times(count, lines, exponent, ps):
        at_once, sectors = COUNTS[count]
        ts = []
        for q in preds:
            u = q[at_once]
            e = 1 - math.exp(-((u / lines) ** exponent)) if u > 0 else 0.0
            ts.append(time(q, e * q[sectors] * sector * ps * 1e-6))
        return ts

    plain = [time(q, 0.0) for q in preds]
    worst = max(abs(t / q["time_us"] - 1) for t, q in zip(plain, preds))
    if worst > 1e-6:
        raise SystemExit("fit_whole_lines.py: the terms combined here differ from memsim's time by %.2g" % worst)

    def loss(count, x):
        return sum(math.log(t / r["median_us"]) ** 2 for t, r in zip(times(count, *x), runs))

    fits = {}
    for count in COUNTS:
        x = [150000.0, 2.0, 4.0]
        bounds = [(10000.0, 1000000.0), (0.3, 8.0), (0.0, 40.0)]
        for _ in range(60):
            before = list(x)
            for i in range(3):
                lo, hi = bounds[i]
                if i == 0:  # the scale in log space
                    v = math.exp(golden(lambda lv: loss(count, x[:0] + [math.exp(lv)] + x[1:]), math.log(lo), math.log(hi)))
                else:
                    v = golden(lambda vv: loss(count, x[:i] + [vv] + x[i + 1:]), lo, hi)
                x[i] = v
            if max(abs(u - v) / max(abs(v), 1e-9) for u, v in zip(x, before)) < 1e-4:
                break
        rms = math.sqrt(loss(count, x) / len(runs))
        fits[count] = (x, rms)
    rms0 = math.sqrt(sum(math.log(t / r["median_us"]) ** 2 for t, r in zip(plain, runs)) / len(runs))
    kept = min(fits, key=lambda c: fits[c][1])
    ncu = ncu_bytes(a.ncu) if a.ncu else None

    lines = ["memsim-held-open's whole-sector runs, %s (%s), %d runs (left out, memsim's block cannot hold their rows: %s)"
             % (doc["device"], " ".join([a.runs] + a.also), len(runs), ", ".join(sorted(set(left_out))) or "none"),
             "without a cost: rms log error %.3f" % rms0]
    for count, (x, rms) in fits.items():
        lines.append("count %-5s: lines %.0f, exponent %.2f, ps_per_byte %.3f: rms log error %.3f%s"
                     % (count, x[0], x[1], x[2], rms, "  (kept)" if count == kept else ""))
    x = fits[kept][0]
    after = times(kept, *x)
    lines.append("")
    lines.append("| run | blocks an SM | µs | memsim before | after (%s) | whole lines at once | lone | rounds apart | e |%s"
                 % (kept, " read back / written, x the output (ncu) |" if ncu else ""))
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |%s" % (" --- |" if ncu else ""))
    # ncu's --once order: every run at the first occupancy, then the next (held_open.cu's loop), as the timed runs.
    for i, (r, q, t) in enumerate(zip(runs, preds, after)):
        u = q[COUNTS[kept][0]]
        e = 1 - math.exp(-((u / x[0]) ** x[1])) if u > 0 else 0.0
        extra = ""
        if ncu and any(r is d for d in doc["runs"]):
            j = next(k for k, d in enumerate(doc["runs"]) if d is r)
            if j < len(ncu):
                m = ncu[j]
                extra = " %.3f / %.2f |" % (m["dram__bytes_read.sum"] / out_bytes - 1, m["dram__bytes_write.sum"] / out_bytes)
        lines.append("| %s | %d | %.1f | %.1f (%+.1f%%) | %.1f (%+.1f%%) | %.0f | %.0f | %.1f | %.2f |%s" % (
            r["name"], r["blocks_per_sm"], r["median_us"], q["time_us"], 100 * (q["time_us"] / r["median_us"] - 1),
            t, 100 * (t / r["median_us"] - 1), q["whole_lines_open_at_once"], q["lone_sector_lines_open_at_once"],
            q["whole_line_rounds_apart"], e, extra))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.report:
        open(a.report, "w").write(text)
    if a.write:
        law = {"count": kept, "lines": round(x[0]), "exponent": round(x[1], 3), "ps_per_byte": round(x[2], 3),
               "note": "fitted by lab/calibration/fit_whole_lines.py on memsim-held-open's whole-sector runs alone (%s)"
                       % ", ".join(os.path.basename(f) for f in [a.runs] + a.also)}
        src = open(a.profile).read()
        block = re.search(r'\n( *)"whole_lines": \{.*?\n\1\}', src, re.S)
        indent = block.group(1) if block else "    "
        text = json.dumps(law, indent=2).replace("\n", "\n" + indent)
        if block:  # the law replaced where it stands, the rest of the file as it was
            src = src[:block.start()] + "\n%s\"whole_lines\": %s" % (indent, text) + src[block.end():]
        else:
            cost = re.search(r'\n( *)"cost": \{\n', src)
            indent = cost.group(1) + "  "
            text = json.dumps(law, indent=2).replace("\n", "\n" + indent)
            src = src[:cost.end()] + "%s\"whole_lines\": %s,\n" % (indent, text) + src[cost.end():]
        open(a.profile, "w").write(src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
