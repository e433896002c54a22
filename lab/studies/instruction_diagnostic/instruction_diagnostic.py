#!/usr/bin/env python3
"""How much of the cost model's error is the instruction count?

Kernels with identical memory counts (copy_shared, padded, diagonal, coarse, fine, swizzle) differ on the
GPU by their index arithmetic. This script re-predicts every configuration of validation runs three ways and
prints the model's accuracy on the judged sets (docs/validation.md: f32 at 4096^2 and larger, f16/f64 at 8192^2):
  - as recorded in the run (the model of the run's revision);
  - with this memsim as it is (its instruction estimate, model/profile.hpp);
  - with `memsim --instructions N`, N = the warp instructions Nsight Compute measured in the same run
    (smsp__inst_executed.sum): a diagnostic, not a prediction, since N is measured on the GPU. It bounds what
    a better instruction estimate could buy, and shows what the memory model leaves over.
It also splits this memsim's predictions by whether memsim gave them a caveat (prediction.caveats: a
partial-store cost the profile lacks, or loads over many lines with one in flight, whose time is likely low).

    lab/studies/instruction_diagnostic/instruction_diagnostic.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: memsim's report, reading files, the error rule)

USAGE = "lab/studies/instruction_diagnostic/instruction_diagnostic.py MEMSIM_BINARY RUN.json [RUN.json ...] > OUT.md"
INSTRUCTIONS = "smsp__inst_executed.sum"


def judged(cfg):
    m = cfg["matrix"]
    if cfg["dtype"] == "f32":
        return m["width"] * m["height"] >= 4096 * 4096
    return m["width"] == 8192 and m["height"] == 8192


def memsim_json(binary, cfg, instructions=None, env=None):
    """memsim's JSON report for a validation record's resolved config (run's "config" object)."""
    extra = [] if instructions is None else ["--instructions", repr(instructions)]
    return memsim_run.memsim_json_for_config(binary, cfg, extra, env)


def memsim_time(binary, cfg, instructions):
    return memsim_run.field(memsim_json(binary, cfg, instructions), ("prediction", "time_us"),
                            "memsim's report for %s" % cfg["kernel"])


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


def judged_rows(path, run):
    """The judged records of run (read from path) with the instruction count measured, as table rows."""
    rows = []
    for i, rec in enumerate(run["records"]):
        where = "%s: record %d" % (path, i)
        try:
            cfg = rec["config"]
            n = rec.get("metrics", {}).get(INSTRUCTIONS, {}).get("measured")
            if not judged(cfg) or n is None or "time_us" not in rec.get("predicted", {}):
                continue
            for key in (("tile", "x"), ("tile", "y"), ("block", "x"), ("block", "y")):
                if not isinstance(memsim_run.field(cfg, key, where + " config"), int):
                    raise memsim_run.Error("%s config has a non-integer %s" % (where, ".".join(key)))
            for key in ("kernel", "dtype"):
                memsim_run.field(cfg, (key,), where + " config")
            measured = memsim_run.field(rec, ("measured", "time_us", "median"), where)
            for name, value in (("metrics.%s.measured" % INSTRUCTIONS, n), ("measured.time_us.median", measured),
                                ("predicted.time_us", rec["predicted"]["time_us"])):
                if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                    raise memsim_run.Error("%s has a %s that is no positive number" % (where, name))
            rows.append({"id": rec["id"], "cfg": cfg, "instructions": n, "measured": measured,
                         "estimate": rec["predicted"]["time_us"],
                         "group": "%s %dx%d block %dx%d" % (cfg["dtype"], cfg["matrix"]["width"], cfg["matrix"]["height"],
                                                            cfg["block"]["x"], cfg["block"]["y"])})
        except (AttributeError, KeyError, TypeError):
            raise memsim_run.Error("%s is not a validation record (id, config, metrics, measured, predicted)"
                                   % where) from None
    return rows


def main():
    args = memsim_run.check_args(sys.argv, __doc__, USAGE, 2, 1 << 30)
    binary, runs = args[0], args[1:]
    memsim_run.check_binary(binary)
    rows = []
    for path in runs:
        rows += judged_rows(path, memsim_run.read_validation_run(path))
    if not rows:
        raise memsim_run.Error("no judged configuration (f32 at 4096^2 and larger, f16/f64 at 8192^2) with %s "
                               "measured in %s: give the suite's runs with --ncu (validate/run_suite.sh: "
                               "suite_f32.json, suite_f16_f64.json)" % (INSTRUCTIONS, ", ".join(runs)))
    times = memsim_run.parallel_map(lambda r: memsim_time(binary, r["cfg"], r["instructions"]), rows)
    now = memsim_run.parallel_map(lambda r: memsim_json(binary, r["cfg"])["prediction"], rows)
    for r, t, n in zip(rows, times, now):
        where = "memsim's report for %s" % r["id"]
        r["with_measured"] = t
        r["now"] = memsim_run.field(n, ("time_us",), where + " prediction")
        r["caveat"] = bool(n.get("caveats")) if isinstance(n, dict) else False

    print("## Cost model with the measured instruction count (diagnostic)\n")
    print("Runs: %s. memsim: `%s --instructions N`, N = `%s` measured in the same run.\n"
          % (", ".join("`%s`" % p for p in runs), binary.split("/")[-1], INSTRUCTIONS))
    print("| set | instructions | n | MAPE | mean error | worst APE | worst configuration | Spearman pooled | Spearman within groups |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, subset in (("block 32x8", [r for r in rows if r["cfg"]["block"] == {"x": 32, "y": 8}]),
                         ("every block", rows)):
        if not subset:
            continue  # runs without a 32x8 block
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
    memsim_run.main_guard(main)
