#!/usr/bin/env python3
"""The accuracy and speed figures README.md and validate/results/README.md quote, from the committed runs.

Every figure those documents quote about the GPU runs sits in a generated block between
`<!-- figures:NAME -->` and `<!-- /figures:NAME -->`; this script recomputes each block from the committed run
documents (validate/results/*.json, the model's hold-out report), so a figure and its source cannot disagree:

    validate/figures.py --check     # exit 1 and name the block when a document's block differs
    validate/figures.py --write     # rewrite the blocks in place after a new run

Paths are relative to the repository root (the parent of this script's folder). Standard library only. A
missing or malformed run document, or a document without a block it should hold, gives one line on stderr and
exit 2.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join("validate", "results")
DOCUMENTS = ("README.md", os.path.join(RESULTS, "README.md"), os.path.join("docs", "model.md"),
             os.path.join("docs", "validation.md"))
# The GPUs whose runs are quoted: label, the run holding 8192x8192 f32 with the references, the 16384 run.
GPUS = (("H100", "suite_f32.json", None), ("H200", "h200_suite_f32.json", "h200_suite_16384.json"))
COUNT_RUNS = ("suite_f32.json", "suite_f16_f64.json", "suite_16384.json", "best.json", "odd_sizes.json",
              "h200_suite_f32.json", "h200_suite_f16_f64.json", "h200_best.json", "h200_suite_16384.json",
              "h200_odd_sizes.json")
# The runs of the fastest kernel, best, on each GPU: 8192^2 and 16384^2 in f16, f32 and f64.
BEST_RUNS = (("H100", "best.json"), ("H200", "h200_best.json"))
HOLDOUT = os.path.join("lab", "calibration", "results", "h100_holdout_suite.txt")
# The held-out sweep (lab/heldout/): per GPU, its runs' folder.
HELDOUT = (("H100", os.path.join("lab", "heldout", "results", "h100")),
           ("H200", os.path.join("lab", "heldout", "results", "h200")))


# Per GPU: its shipped profile, the fit's report and the suite's judging (memsim-calibrate --holdout).
PROFILES = (("H100", "h100", "h100_calibration_report.txt", "h100_holdout_suite.txt", HELDOUT[0][1]),
            ("H200", "h200", "h200_calibration_report.txt", "h200_holdout_suite.txt", HELDOUT[1][1]))


class Error(Exception):
    pass


def load(name):
    path = os.path.join(ROOT, RESULTS, name)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Error("cannot read run document %s: %s" % (path, e.strerror)) from None
    except json.JSONDecodeError as e:
        raise Error("%s is not JSON (%s)" % (path, e)) from None


def matrix(rec):
    m = rec["config"]["matrix"]
    return "%dx%d" % (m["width"], m["height"])


def block(rec):
    b = rec["config"]["block"]
    return "%dx%d" % (b["x"], b["y"])


def records_with_reference(doc, mat):
    out = []
    for r in doc["records"]:
        meas = r.get("measured") or {}
        if matrix(r) == mat and r["config"]["dtype"] == "f32" and meas.get("reference"):
            out.append(r)
    return out


def memcpy_gbs(doc, mat):
    for g in doc["groups"]:
        if g["matrix"] == mat and g["dtype"] == "f32":
            return g["baselines"]["cudaMemcpy_d2d"]["effective_bandwidth_gbs"]
    raise Error("no f32 %s group in the run" % mat)


def block_references():
    """Suite kernel against its hand-written reference, 8192x8192 f32, on each GPU."""
    docs = {label: load(name) for label, name, _ in GPUS}
    rows = {}
    for label, doc in docs.items():
        for r in records_with_reference(doc, "8192x8192"):
            m = r["measured"]
            rows.setdefault((r["config"]["kernel"], block(r)), {})[label] = (
                m["effective_bandwidth_gbs"], m["fraction_of_memcpy"], m["fraction_of_reference"],
                m["instructions_over_reference"])
    labels = [label for label, _, _ in GPUS]
    head = "| kernel | block | " + " | ".join(
        "%s GB/s | %s of cudaMemcpy | %s of reference | %s instructions / reference" % ((lab,) * 4)
        for lab in labels) + " |"
    lines = [head, "|" + " --- |" * (2 + 4 * len(labels))]
    worst = {}
    for (kernel, blk), per in rows.items():
        cells = []
        for lab in labels:
            if lab not in per:
                cells += ["-"] * 4
                continue
            gbs, mc, ref, inst = per[lab]
            cells += ["%.0f" % gbs, "%.3f" % mc, "%.3f" % ref, "%.2fx" % inst]
            if lab not in worst or ref < worst[lab][0]:
                worst[lab] = (ref, "%s %s" % (kernel, blk))
        lines.append("| %s | %s | %s |" % (kernel, blk, " | ".join(cells)))
    for lab in labels:
        memcpy = memcpy_gbs(docs[lab], "8192x8192")
        ref, what = worst[lab]
        lines.append("")
        lines.append("%s: cudaMemcpy %.0f GB/s; lowest suite kernel / reference %.3f (%s)." % (lab, memcpy, ref, what))
    return "\n".join(lines)


def exact_counts():
    """Global requests and sectors: memsim against Nsight Compute, over every committed run."""
    lines = []
    for name in COUNT_RUNS:
        doc = load(name)
        equal = total = 0
        for r in doc["records"]:
            for metric, v in (r.get("metrics") or {}).items():
                if v.get("tolerance") == "exact" and v.get("measured") is not None:
                    total += 1
                    equal += v.get("predicted") == v.get("measured")
        device = doc["context"]["device"]["name"]
        lines.append("- `%s` (%s): %d of %d equal" % (name, device, equal, total))
    return "\n".join(lines)


def model_accuracy():
    """The hold-out report's pooled lines (the h100 profile against the committed suite runs)."""
    path = os.path.join(ROOT, HOLDOUT)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror)) from None
    found = re.findall(r"^\s*all, (block 32x8|all blocks)\s+n=(\d+)\s+MAPE\s+([\d.]+)%\s+max\s+([\d.]+)%\s+"
                       r"Spearman\s+([\d.]+)", text, re.M)
    if len(found) != 2:
        raise Error("%s has no 'Every record' lines (expected memsim-calibrate --holdout-validate output)" % path)
    return "\n".join("- %s: %s configurations, MAPE %s%%, worst %s%%, Spearman %s" % row for row in found)


def best_kernel():
    """best at block 16x16 against the faster of the copy kernel and cudaMemcpy, and cuBLAS geam, per GPU."""
    lines = ["| GPU | matrix | dtype | best GB/s | of max(copy kernel, cudaMemcpy) | of cuBLAS geam | memsim predicted / measured time |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, name in BEST_RUNS:
        doc = load(name)
        base = {}
        for g in doc["groups"]:
            b = g["baselines"]
            gbs = {k: (b[k]["effective_bandwidth_gbs"] if b[k]["available"] else None) for k in b}
            base[(g["matrix"], g["dtype"])] = gbs
        for r in doc["records"]:
            if block(r) != "16x16":
                continue
            gbs = base[(matrix(r), r["config"]["dtype"])]
            m = r["measured"]
            got = m["effective_bandwidth_gbs"]
            floor = max(gbs["copy_kernel"], gbs["cudaMemcpy_d2d"])
            cublas = "%.3f" % (got / gbs["cublas_geam"]) if gbs.get("cublas_geam") else "n/a (no f16 geam)"
            ratio = r["predicted"]["time_us"] / m["time_us"]["median"]
            lines.append("| %s | %s | %s | %.0f | %.3f | %s | %.3f |" % (
                label, matrix(r), r["config"]["dtype"], got, got / floor, cublas, ratio))
    return "\n".join(lines)


def read_text(rel):
    path = os.path.join(ROOT, rel)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror)) from None


def heldout_judged(folder):
    """This model's figures on the held-out sweep, from its judged report (lab/heldout/judge.py --memsim, the
    "predicted here" block: every run predicted again by the committed model; regenerate_holdouts.sh remakes it):
    (configurations, MAPE %, worst signed %, the worst's configuration, within 25%, block shapes right, sweeps)."""
    rel = folder + "_judged.txt"
    text = read_text(rel)
    m = re.search(r"^predicted here \(.*?\): (\d+) configurations, MAPE ([\d.]+)%, median [\d.]+%, worst "
                  r"([+-][\d.]+)% \((\S+) (\S+) (\S+) (\d+x\d+)/(\d+x\d+)\), within 25%: (\d+)", text, re.M)
    c = re.search(r"^predicted here .*\n(?:(?!  block-shape).*\n)*  block-shape choice: within 3% of the measured "
                  r"fastest in (\d+) of (\d+) sweeps", text, re.M)
    if not m or not c:
        raise Error("%s has no 'predicted here' figures (run lab/heldout/judge.py with --memsim)" % rel)
    where = "%s %s %s block %s" % (m.group(4), m.group(5), m.group(6), m.group(7))
    return (int(m.group(1)), float(m.group(2)), float(m.group(3)), where, int(m.group(9)), int(c.group(1)),
            int(c.group(2)))


def heldout_figures(folder):
    """(configurations, MAPE %, worst signed %, the worst's configuration) of the held-out sweep, as quoted."""
    return heldout_judged(folder)[:4]


def fit_worst(report):
    """The microbenchmark run the fit misses most: (signed error %, its bench and parameters)."""
    worst = None
    for m in re.finditer(r"^  (\w+)\s+(\S.*?)\s+[\d.]+\s+[\d.]+\s+([+-][\d.]+)%$", read_text(report), re.M):
        e = float(m.group(3))
        if worst is None or abs(e) > abs(worst[0]):
            worst = (e, "%s %s" % (m.group(1), m.group(2)))
    if worst is None:
        raise Error("%s lists no fitted runs" % report)
    return worst


def judged_suite(holdout):
    m = re.search(r"^\s*judged, all blocks\s+n=(\d+)\s+MAPE\s+([\d.]+)%\s+max\s+([\d.]+)%", read_text(holdout), re.M)
    if not m:
        raise Error("%s has no 'judged, all blocks' line" % holdout)
    return m.groups()


def accuracy():
    """One accuracy story per GPU: the fit, the held-out sweep, the judged suite, each with its worst named."""
    lines = ["| | " + " | ".join("%s (`%s`)" % (label, prof) for label, prof, *_ in PROFILES) + " |",
             "| --- |" + " --- |" * len(PROFILES)]
    fit, held, suite = [], [], []
    for label, prof, report, holdout, folder in PROFILES:
        cal = json.loads(read_text(os.path.join("model", "devices", prof + ".json")))["calibration"]
        e, what = fit_worst(os.path.join("lab", "calibration", "results", report))
        fit.append("MAPE %.1f%%, worst %+.1f%% (`%s`), %d runs" % (cal["mape_pct"], e, what, cal["runs"]))
        n, mape, worst, where = heldout_figures(folder)
        held.append("MAPE %.1f%%, worst %+.1f%% (`%s`), %d configurations" % (mape, worst, where, n))
        n, mape, mx = judged_suite(os.path.join("lab", "calibration", "results", holdout))
        suite.append("MAPE %s%%, worst %s%%, %s configurations" % (mape, mx, n))
    lines.append("| microbenchmark fit (the runs the constants are fitted to; every report's first figure) | " +
                 " | ".join(fit) + " |")
    lines.append("| held-out sweep (blocks, tiles, pads no fit saw; every report's second figure) | " +
                 " | ".join(held) + " |")
    lines.append("| the suite at the seed articles' shapes (judged set) | " + " | ".join(suite) + " |")
    return "\n".join(lines)


def profile_heldout_stale():
    """The shipped profiles whose calibration.heldout (what every report quotes) differs from the held-out runs."""
    stale = []
    for label, prof, _, _, folder in PROFILES:
        rel = os.path.join("model", "devices", prof + ".json")
        h = json.loads(read_text(rel))["calibration"].get("heldout")
        n, mape, worst, _ = heldout_figures(folder)
        if not h or (h["configurations"], h["mape_pct"], h["worst_pct"]) != (n, mape, worst):
            stale.append("%s calibration.heldout (the runs give %d configurations, MAPE %.1f%%, worst %+.1f%%)"
                         % (rel, n, mape, worst))
    return stale


def heldout_accuracy():
    """The held-out sweep's time error and block-shape choices, as the committed model predicts them."""
    lines = []
    for label, folder in HELDOUT:
        n, mape, worst, _, within, right, sweeps = heldout_judged(folder)
        lines.append("- %s: %d configurations, MAPE %.1f%%, worst %+.1f%%, within 25%%: %d; block shape within 3%% "
                     "of the fastest in %d of %d sweeps" % (label, n, mape, worst, within, right, sweeps))
    return "\n".join(lines)


BLOCKS = {"references": block_references, "counts": exact_counts, "model": model_accuracy, "best": best_kernel,
          "heldout": heldout_accuracy, "accuracy": accuracy}
MARK = re.compile(r"(<!-- figures:(\w+) -->\n)(.*?)(<!-- /figures:\2 -->)", re.S)


def regenerate(text, made):
    def sub(m):
        name = m.group(2)
        if name not in BLOCKS:
            raise Error("unknown figures block '%s' (known: %s)" % (name, ", ".join(sorted(BLOCKS))))
        if name not in made:
            made[name] = BLOCKS[name]()
        return m.group(1) + made[name] + "\n" + m.group(4)
    return MARK.sub(sub, text)


def main(argv):
    if len(argv) != 1 or argv[0] not in ("--check", "--write"):
        raise Error("usage: validate/figures.py --check | --write")
    made, stale = {}, []
    for doc in DOCUMENTS:
        path = os.path.join(ROOT, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if not MARK.search(text):
            raise Error("%s holds no figures block" % doc)
        new = regenerate(text, made)
        if new != text:
            stale.append(doc)
            if argv[0] == "--write":
                # Whole or not at all: written beside the document, then renamed over it.
                tmp = path + ".tmp.%d" % os.getpid()
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(new)
                os.replace(tmp, path)
    # What every report quotes comes from the profile: it must be the runs' figure too (edit the profile by hand).
    stale += profile_heldout_stale()
    if stale and argv[0] == "--check":
        print("figures.py: figures in %s differ from the committed runs: run validate/figures.py --write"
              % ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Error as e:
        print("figures.py: %s" % e, file=sys.stderr)
        sys.exit(2)
