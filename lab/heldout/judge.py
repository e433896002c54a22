#!/usr/bin/env python3
"""Judges memsim on the held-out sweep (lab/heldout/README.md): predicted against measured time per
configuration, the block shape memsim would pick in each (kernel, dtype, matrix) sweep against the measured
fastest, and the warp instructions against Nsight Compute's smsp__inst_executed.sum where a run has them; where
a run has Nsight Compute's DRAM bytes, memsim's DRAM bytes against them, and the time predicted again with the
bytes read given (--dram-read-bytes), which parts the read-back's error from the rest.

    judge.py RUN.json [RUN.json ...] [--memsim BIN --device NAME] [--report FILE] [--dram-report FILE]

With --memsim, every configuration is predicted again by that memsim binary (on this machine: where no toolkit
compiles, the compiled code's estimate), beside the prediction the GPU run recorded.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: one place that spells memsim's command line)


def records(paths):
    for p in paths:
        for r in memsim_run.read_validation_run(p)["records"]:
            if r.get("measured", {}).get("time_us") and r.get("predicted", {}).get("time_us"):
                yield r


def key(r):
    c = r["config"]
    return (c["kernel"], c["dtype"], "%dx%d" % (c["matrix"]["width"], c["matrix"]["height"]))


def shape(r):
    c = r["config"]
    return "%dx%d/%dx%d" % (c["block"]["x"], c["block"]["y"], c["tile"]["x"], c["tile"]["y"])


def repredict(r, memsim, device, extra=()):
    j = memsim_run.memsim_json_for_config(memsim, r["config"], ["--device", device] + list(extra))
    p = j["prediction"]
    # A caveat that the time is likely high leaves no doubt that the row is as fast (caveats_time_high).
    low = len(p.get("caveats", [])) > p.get("caveats_time_high", 0)
    return (p["time_us"], p.get("instructions"), p.get("instructions_basis"), p.get("caveats", []), p.get("dram_bytes"),
            low)


def measured_metric(r, name):
    return r.get("metrics", {}).get(name, {}).get("measured")


def read_back_pair(r, d):
    """The read-back of record r as memsim models it (its dram_bytes d) and as Nsight Compute measured it, each
    the bytes read beyond the loads' own (memsim's loads' bytes for both) over the output's bytes."""
    loads = d["read"] - d["read_back"]
    out_bytes = r["config"]["matrix_bytes"]
    return d["read_back"] / out_bytes, max(0.0, measured_metric(r, "dram__bytes_read.sum") - loads) / out_bytes


def dram_lines(rows, modelled, modelled_times, given, out):
    """memsim's DRAM bytes against Nsight Compute's (dram__bytes_read.sum, dram__bytes_write.sum) and the time
    again with the bytes read given. rows: (record, measured time); modelled: memsim's dram_bytes for each;
    given: (time, dram_bytes) predicted with --dram-read-bytes. The read-back as a share of the output: the
    bytes read beyond the loads' own (memsim's loads' bytes for both)."""
    back = [(*read_back_pair(r, d), r) for (r, _), d in zip(rows, modelled)]
    # Where either side reads back more than 2% of the output: the kernels whose stores leave lines part written.
    some = [t for t in back if max(t[0], t[1]) > 0.02]
    text = ("  DRAM bytes read beyond the loads' own (the read-back, x the output) against dram__bytes_read.sum: "
            "%d configurations, %d reading back more than 0.02 on either side" % (len(back), len(some)))
    if some:
        diffs = [p - m for p, m, _ in some]
        worst = max(some, key=lambda t: abs(t[0] - t[1]))
        text += (": memsim mean %.2f, measured mean %.2f, mean |difference| %.2f, within 0.10: %d, worst %+.2f "
                 "(%s %s, memsim %.2f, measured %.2f)"
                 % (sum(p for p, _, _ in some) / len(some), sum(m for _, m, _ in some) / len(some),
                    sum(abs(x) for x in diffs) / len(diffs), sum(1 for x in diffs if abs(x) <= 0.10),
                    worst[0] - worst[1], " ".join(key(worst[2])), shape(worst[2]), worst[0], worst[1]))
    out.append(text)
    written = [measured_metric(r, "dram__bytes_write.sum") / d["written"] for (r, _), d in zip(rows, modelled)]
    out.append("  DRAM bytes written against dram__bytes_write.sum: measured %.2f to %.2f times memsim's (mean %.2f): "
               "memsim charges each output byte once; a line evicted part written is written again"
               % (min(written), max(written), sum(written) / len(written)))
    judge([(r, m, t) for (r, m), (t, _) in zip(rows, given)], "  with Nsight Compute's DRAM bytes read given "
          "(--dram-read-bytes)", out, picks=False)
    as_modelled = [abs(t / m - 1) for (_, m), t in zip(rows, modelled_times)]
    out.append("  (the same configurations as modelled: MAPE %.1f%%, within 25%%: %d, within 10%%: %d)"
               % (100 * sum(as_modelled) / len(as_modelled), sum(1 for x in as_modelled if x <= 0.25),
                  sum(1 for x in as_modelled if x <= 0.10)))


def judge(rows, label, out, picks=True):
    errs = [(p / m - 1, r) for r, m, p in rows]
    a = sorted(abs(e) for e, _ in errs)
    out.append("%s: %d configurations, MAPE %.1f%%, median %.1f%%, worst %+.1f%% (%s %s), within 25%%: %d, within 10%%: %d"
               % (label, len(a), 100 * sum(a) / len(a), 100 * a[len(a) // 2],
                  100 * max(errs, key=lambda t: abs(t[0]))[0], " ".join(key(max(errs, key=lambda t: abs(t[0]))[1])),
                  shape(max(errs, key=lambda t: abs(t[0]))[1]), sum(1 for x in a if x <= 0.25),
                  sum(1 for x in a if x <= 0.10)))
    for e, r in sorted(errs, key=lambda t: -abs(t[0]))[:6]:
        out.append("    %+6.1f%%  %-12s %s %s %s" % (100 * e, *key(r), shape(r)))
    if picks:
        shape_choice(rows, [False] * len(rows), "block-shape choice", "picks", out)


def shape_choice(rows, caveated, what, verb, out):
    """In each (kernel, dtype, matrix) sweep, the block shape memsim names against the measured fastest: the
    predicted fastest row among those without a caveat (every row where all carry one, or where none is marked)."""
    groups = defaultdict(list)
    for (r, m, p), c in zip(rows, caveated):
        groups[key(r)].append((r, m, p, c))
    hits, lines = 0, []
    for k, g in sorted(groups.items()):
        best = min(t[1] for t in g)
        pick = min([t for t in g if not t[3]] or g, key=lambda t: t[2])
        ok = pick[1] <= 1.03 * best
        hits += ok
        if not ok:
            lines.append("    %-12s %s %s: %s %s, which runs %.1f%% slower than the fastest (%s)"
                         % (*k, verb, shape(pick[0]), 100 * (pick[1] / best - 1), shape(min(g, key=lambda t: t[1])[0])))
    out.append("  %s: within 3%% of the measured fastest in %d of %d sweeps" % (what, hits, len(groups)))
    out.extend(lines)


def caveat_pick_line(rows, caveated, out):
    """The block shape a sweep names where its fastest row carries a caveat that its time may be low: the fastest
    row without one."""
    shape_choice(rows, caveated, "block-shape choice, the fastest row without a caveat (what a sweep names where "
                 "its fastest carries one)", "names", out)


def near_line(rows, band_pct, out):
    """The rows a memsim sweep names too close to order (report/sweep.cpp, near_fastest: predicted within the
    profile's held-out MAPE of the fastest) in each (kernel, dtype, matrix) sweep: how often timing them finds one
    within 3% of the measured fastest, and how many they are."""
    groups = defaultdict(list)
    for r, m, p in rows:
        groups[key(r)].append((m, p))
    hits = sizes = 0
    for g in groups.values():
        fastest_predicted = min(p for _, p in g)
        near = [m for m, p in g if p <= fastest_predicted * (1 + band_pct / 100)]
        hits += min(near) <= 1.03 * min(m for m, _ in g)
        sizes += len(near)
    out.append("  the rows a sweep names too close to order (predicted within %.1f%% of its fastest, the profile's "
               "held-out MAPE): one of them within 3%% of the measured fastest in %d of %d sweeps, %.1f rows a sweep"
               % (band_pct, hits, len(groups), sizes / len(groups)))


def profile_heldout_mape(device):
    """The held-out MAPE the profile `device` quotes (model/devices/DEVICE.json), or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model", "devices", "%s.json" % device)
    try:
        return json.load(open(path))["calibration"]["heldout"]["mape_pct"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def caveat_line(rows, caveated, out):
    """How the predictions that carry a caveat (a time memsim says is likely low, or a cost it leaves out) fare."""
    errs = [p / m - 1 for _, m, p in rows]
    marked = [e for e, c in zip(errs, caveated) if c]
    far = [c for e, c in zip(errs, caveated) if abs(e) > 0.25]
    if not marked:
        out.append("  with a caveat: none")
        return
    low, high = [e for e in marked if e < 0], [e for e in marked if e >= 0]
    text = "  with a caveat: %d configurations, %d predicted fast" % (len(marked), len(low))
    if low:
        text += " (%.0f%% to %.0f%%)" % (100 * max(low), 100 * min(low))
    text += ", %d slow" % len(high)
    if high:
        text += " (%+.0f%% to %+.0f%%)" % (100 * min(high), 100 * max(high))
    out.append(text + "; of the %d off by more than 25%%, %d carry one" % (len(far), sum(far)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--memsim")
    ap.add_argument("--device")
    ap.add_argument("--memsim-arg", action="append", default=[], help="an option for every memsim run (e.g. --runtime-shape)")
    ap.add_argument("--no-compile", action="store_true",
                    help="predict without the toolkit whatever this machine has (memsim --no-compile): the shipped "
                         "table or the estimate, as a user without the CUDA Toolkit gets; set MEMSIM_CACHE_DIR to an "
                         "empty folder as well, or compiled code cached earlier is taken")
    ap.add_argument("--report")
    ap.add_argument("--dram-report", help="with --memsim: write the DRAM bytes' lines (runs with Nsight Compute's "
                    "DRAM bytes only) to this file as well")
    a = ap.parse_args()
    recs = list(records(a.runs))
    out = []
    ctx = memsim_run.read_validation_run(a.runs[0]).get("context", {})
    dev = ctx.get("device", {})
    out.append("Held-out sweep, %s: %s" % (dev.get("name", "?"), ", ".join(sorted({os.path.basename(p).split("_heldout")[0] for p in a.runs}))))
    if not a.memsim_arg:
        judge([(r, r["measured"]["time_us"]["median"], r["predicted"]["time_us"]) for r in recs],
              "as the GPU run predicted (compiled code)", out)
    inst = []
    if a.memsim:
        rows, bases = [], defaultdict(int)
        caveated, doubtful = [], []  # any caveat; one that the time may be low
        extra = a.memsim_arg + (["--no-compile"] if a.no_compile else [])
        predicted = memsim_run.parallel_map(lambda r: repredict(r, a.memsim, a.device, extra), recs)
        for r, (t, n, basis, caveats, _, low) in zip(recs, predicted):
            caveated.append(bool(caveats))
            doubtful.append(low)
            bases[(basis or "").split(" (")[0]] += 1
            rows.append((r, r["measured"]["time_us"]["median"], t))
            m = measured_metric(r, "smsp__inst_executed.sum")
            if m and n:
                inst.append((n / m - 1, r))
        judge(rows, "predicted here%s (%s)" % ("".join(" " + x for x in a.memsim_arg), "; ".join("%s: %d" % kv for kv in bases.items())), out)
        caveat_line(rows, caveated, out)
        caveat_pick_line(rows, doubtful, out)
        band = profile_heldout_mape(a.device) if a.device else None
        if band:
            near_line(rows, band, out)
        with_dram = [(r, m, p[4], p[0]) for (r, m, _), p in zip(rows, predicted)
                     if measured_metric(r, "dram__bytes_read.sum") and measured_metric(r, "dram__bytes_write.sum")]
        if with_dram:
            given = memsim_run.parallel_map(
                lambda t: repredict(t[0], a.memsim, a.device,
                                    extra + ["--dram-read-bytes", "%d" % measured_metric(t[0], "dram__bytes_read.sum")]),
                with_dram)
            start = len(out)
            dram_lines([(r, m) for r, m, _, _ in with_dram], [d for _, _, d, _ in with_dram],
                       [t for _, _, _, t in with_dram], [(g[0], g[4]) for g in given], out)
            if a.dram_report:
                open(a.dram_report, "w").write(out[0] + "\n" + "\n".join(out[start:]) + "\n")
    if inst:
        a_ = [abs(e) for e, _ in inst]
        out.append("  warp instructions against smsp__inst_executed.sum: %d configurations, mean |error| %.2f%%, worst %+.2f%%, within 10%%: %d, within 20%%: %d"
                   % (len(inst), 100 * sum(a_) / len(a_), 100 * max(inst, key=lambda t: abs(t[0]))[0],
                      sum(1 for x in a_ if x <= 0.1), sum(1 for x in a_ if x <= 0.2)))
        for e, r in sorted(inst, key=lambda t: -abs(t[0]))[:4]:
            out.append("    %+6.1f%%  %-12s %s %s %s" % (100 * e, *key(r), shape(r)))
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if a.report:
        open(a.report, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(main))
