#!/usr/bin/env python3
"""How much of the cost model's error is the instruction count?

Kernels with identical memory counts (copy_shared, padded, diagonal, coarse, fine, swizzle) differ on the
GPU by their index arithmetic. This script re-predicts every configuration of validation runs three ways and
prints the model's accuracy on the judged sets of issue 4 (f32 at 4096^2 and larger, f16/f64 at 8192^2):
  - as recorded in the run (the model of the run's revision);
  - with this memsim as it is (its instruction estimate, model/profile.hpp);
  - with `memsim --instructions N`, N = the warp instructions Nsight Compute measured in the same run
    (smsp__inst_executed.sum): a diagnostic, not a prediction, since N is measured on the GPU. It bounds what
    a better instruction estimate could buy, and shows what the memory model leaves over.
It also splits this memsim's predictions by whether memsim gave them a caveat (prediction.caveats: a
partial-store cost the profile lacks, or loads over many lines with one in flight, whose time is likely low).

    validate/instruction_diagnostic.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md
"""
import json
import sys
from concurrent.futures import ThreadPoolExecutor

import memsim_run

INSTRUCTIONS = "smsp__inst_executed.sum"


def judged(cfg):
    m = cfg["matrix"]
    if cfg["dtype"] == "f32":
        return m["width"] * m["height"] >= 4096 * 4096
    return m["width"] == 8192 and m["height"] == 8192


def memsim_json(binary, cfg, instructions=None, env=None):
    """memsim's JSON report for a validation record's resolved config (run's "config" object)."""
    extra = ["--tile", "%dx%d" % (cfg["tile"]["x"], cfg["tile"]["y"]), "--threads", "1"]
    if cfg.get("shared_bytes_per_block", 0) > 0 and "pad" in cfg:
        extra += ["--pad", str(cfg["pad"])]
    if instructions is not None:
        extra += ["--instructions", repr(instructions)]
    return memsim_run.memsim_json(binary, cfg["kernel"], cfg["dtype"], "%dx%d" % (cfg["block"]["x"], cfg["block"]["y"]),
                                  "%dx%d" % (cfg["matrix"]["width"], cfg["matrix"]["height"]), extra, env)


def memsim_time(binary, cfg, instructions):
    return memsim_json(binary, cfg, instructions)["prediction"]["time_us"]


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0  # ties share their mean rank
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


def accuracy(rows, key):
    errors = [(r[key] - r["measured"]) / r["measured"] for r in rows]
    apes = [abs(e) for e in errors]
    worst = max(range(len(rows)), key=lambda i: apes[i])
    groups = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    within = [spearman([r["measured"] for r in g], [r[key] for r in g]) for g in groups.values() if len(g) > 2]
    return {
        "n": len(rows),
        "mape": 100 * sum(apes) / len(apes),
        "bias": 100 * sum(errors) / len(errors),
        "worst": 100 * apes[worst],
        "worst_id": rows[worst]["id"],
        "pooled": spearman([r["measured"] for r in rows], [r[key] for r in rows]),
        "within": "%.3f–%.3f" % (min(within), max(within)) if within else "–",
    }


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, runs = sys.argv[1], sys.argv[2:]
    rows = []
    for path in runs:
        with open(path) as f:
            run = json.load(f)
        for rec in run["records"]:
            cfg = rec["config"]
            n = rec.get("metrics", {}).get(INSTRUCTIONS, {}).get("measured")
            if not judged(cfg) or n is None or "time_us" not in rec.get("predicted", {}):
                continue
            rows.append({"id": rec["id"], "cfg": cfg, "instructions": n, "measured": rec["measured"]["time_us"]["median"],
                         "estimate": rec["predicted"]["time_us"],
                         "group": "%s %dx%d block %dx%d" % (cfg["dtype"], cfg["matrix"]["width"], cfg["matrix"]["height"],
                                                            cfg["block"]["x"], cfg["block"]["y"])})
    if not rows:
        sys.exit("no judged configuration with %s in %s" % (INSTRUCTIONS, ", ".join(runs)))
    with ThreadPoolExecutor(max_workers=2) as pool:
        times = list(pool.map(lambda r: memsim_time(binary, r["cfg"], r["instructions"]), rows))
        now = list(pool.map(lambda r: memsim_json(binary, r["cfg"])["prediction"], rows))
    for r, t, n in zip(rows, times, now):
        r["with_measured"] = t
        r["now"] = n["time_us"]
        r["caveat"] = bool(n.get("caveats"))

    print("## Cost model with the measured instruction count (diagnostic)\n")
    print("Runs: %s. memsim: `%s --instructions N`, N = `%s` measured in the same run.\n"
          % (", ".join("`%s`" % p for p in runs), binary.split("/")[-1], INSTRUCTIONS))
    print("| set | instructions | n | MAPE | mean error | worst APE | worst configuration | Spearman pooled | Spearman within groups |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, subset in (("block 32x8", [r for r in rows if r["cfg"]["block"] == {"x": 32, "y": 8}]),
                         ("every block", rows)):
        for key, label in (("estimate", "as recorded in the run"), ("now", "this memsim's estimate"),
                           ("with_measured", "measured (ncu)")):
            a = accuracy(subset, key)
            print("| %s | %s | %d | %.1f%% | %+.1f%% | %.1f%% | %s | %.3f | %s |"
                  % (name, label, a["n"], a["mape"], a["bias"], a["worst"], a["worst_id"], a["pooled"], a["within"]))
    for name, subset in (("every block, no caveat", [r for r in rows if not r["caveat"]]),
                         ("every block, with a caveat", [r for r in rows if r["caveat"]])):
        if subset:
            a = accuracy(subset, "now")
            print("| %s | this memsim's estimate | %d | %.1f%% | %+.1f%% | %.1f%% | %s | %.3f | %s |"
                  % (name, a["n"], a["mape"], a["bias"], a["worst"], a["worst_id"], a["pooled"], a["within"]))
    print("\n| configuration | measured µs | predicted µs: as recorded | this memsim | caveat | with measured instructions | instructions (ncu) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %.1f | %.1f | %.1f | %s | %.1f | %.0f |" % (r["id"], r["measured"], r["estimate"], r["now"],
                                                               "yes" if r["caveat"] else "", r["with_measured"],
                                                               r["instructions"]))


if __name__ == "__main__":
    main()
