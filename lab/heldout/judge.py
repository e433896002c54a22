#!/usr/bin/env python3
"""Judges memsim on the held-out sweep (lab/heldout/README.md): predicted against measured time per
configuration, the block shape memsim would pick in each (kernel, dtype, matrix) sweep against the measured
fastest, and the warp instructions against Nsight Compute's smsp__inst_executed.sum where a run has them.

    judge.py RUN.json [RUN.json ...] [--memsim BIN --device NAME] [--report FILE]

With --memsim, every configuration is predicted again by that memsim binary (on this machine: where no toolkit
compiles, the compiled code's estimate), beside the prediction the GPU run recorded.
"""
import argparse
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
    return p["time_us"], p.get("instructions"), p.get("instructions_basis"), p.get("caveats", [])


def judge(rows, label, out):
    errs = [(p / m - 1, r) for r, m, p in rows]
    a = sorted(abs(e) for e, _ in errs)
    out.append("%s: %d configurations, MAPE %.1f%%, median %.1f%%, worst %+.1f%% (%s %s), within 25%%: %d, within 10%%: %d"
               % (label, len(a), 100 * sum(a) / len(a), 100 * a[len(a) // 2],
                  100 * max(errs, key=lambda t: abs(t[0]))[0], " ".join(key(max(errs, key=lambda t: abs(t[0]))[1])),
                  shape(max(errs, key=lambda t: abs(t[0]))[1]), sum(1 for x in a if x <= 0.25),
                  sum(1 for x in a if x <= 0.10)))
    for e, r in sorted(errs, key=lambda t: -abs(t[0]))[:6]:
        out.append("    %+6.1f%%  %-12s %s %s %s" % (100 * e, *key(r), shape(r)))
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
    """The block shape a sweep names where its fastest row carries a caveat: the fastest row without one."""
    shape_choice(rows, caveated, "block-shape choice, the fastest row without a caveat (what a sweep names where "
                 "its fastest carries one)", "names", out)


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
        caveated = []
        extra = a.memsim_arg + (["--no-compile"] if a.no_compile else [])
        predicted = memsim_run.parallel_map(lambda r: repredict(r, a.memsim, a.device, extra), recs)
        for r, (t, n, basis, caveats) in zip(recs, predicted):
            caveated.append(bool(caveats))
            bases[(basis or "").split(" (")[0]] += 1
            rows.append((r, r["measured"]["time_us"]["median"], t))
            m = r.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured")
            if m and n:
                inst.append((n / m - 1, r))
        judge(rows, "predicted here%s (%s)" % ("".join(" " + x for x in a.memsim_arg), "; ".join("%s: %d" % kv for kv in bases.items())), out)
        caveat_line(rows, caveated, out)
        caveat_pick_line(rows, caveated, out)
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
