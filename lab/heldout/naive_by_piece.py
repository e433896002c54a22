#!/usr/bin/env python3
"""`naive`'s held-out error by the bytes a sector gets in one piece (docs/history/model_notebook.md, "Where
`naive` runs slow by the size of its pieces"): every held-out `naive` configuration of a card whose block width
divides 32, predicted again by a memsim build without the toolkit, grouped by piece (a warp of a block bx wide
writes 32 / bx consecutive elements of each output row it touches); then, over the runs under Nsight Compute,
the share of the sectors the stores touch that reach the L2, and an exploratory least-squares fit of the time to
pieces, bytes partly written and bytes read back (on sets already seen: it shapes a hypothesis, fits nothing).

    lab/heldout/naive_by_piece.py --memsim build/app/memsim [--device h200]
"""
import argparse
import glob
import os
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402

RESULTS = os.path.join(ROOT, "lab", "heldout", "results")
BYTES = {"f16": 2, "f32": 4, "f64": 8}


def naive_records(device, ncu):
    """(record) of every timed naive run of the card's sets; ncu: the runs under Nsight Compute instead."""
    for folder in sorted(glob.glob(os.path.join(RESULTS, device + "*"))):
        name = os.path.basename(folder)
        if not os.path.isdir(folder) or name.endswith("_ncu") != ncu or name.count("_") > (2 if ncu else 1):
            continue
        for path in memsim_run.run_files(folder):
            for r in memsim_run.read_validation_run(path)["records"]:
                if r["config"]["kernel"] == "naive" and r.get("measured", {}).get("time_us"):
                    yield r


def piece_bytes(config):
    """The bytes of a sector one warp writes in one store, or None where the block's width does not divide 32."""
    bx, e = config["block"]["x"], BYTES[config["dtype"]]
    if bx < 32 and 32 % bx:
        return None
    return min(32, (32 // bx) * e if bx < 32 else e)


def solve(a, b):
    """a x = b for a small square a (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def relative_fit(features, times):
    """Least squares on relative error: minimise sum((f . c) / t - 1)^2."""
    rows = [[x / t for x in f] for f, t in zip(features, times)]
    k = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
    atb = [sum(r[i] for r in rows) for i in range(k)]
    return solve(ata, atb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--device", default="h200")
    a = ap.parse_args()
    recs = [r for r in naive_records(a.device, ncu=False) if piece_bytes(r["config"])]
    if not recs:
        raise memsim_run.Error("no timed naive runs of device '%s' under %s" % (a.device, RESULTS))
    if not os.path.isfile(a.memsim) or not os.access(a.memsim, os.X_OK):
        raise memsim_run.Error("%s: no such file, or not executable (--memsim: a memsim binary)" % a.memsim)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MEMSIM_CACHE_DIR"] = cache
        preds = memsim_run.parallel_map(
            lambda r: memsim_run.memsim_json_for_config(a.memsim, r["config"], ["--device", a.device, "--no-compile"]),
            recs)
    groups = {}
    for r, j in zip(recs, preds):
        err = j["prediction"]["time_us"] / r["measured"]["time_us"]["median"] - 1
        groups.setdefault(piece_bytes(r["config"]), []).append(err)
    print("| piece | configurations | mean error | MAPE | past 25% |")
    print("| --- | --- | --- | --- | --- |")
    for piece in sorted(groups):
        v = groups[piece]
        print("| %d bytes | %d | %+.1f%% | %.1f%% | %d |" % (piece, len(v), 100 * sum(v) / len(v),
                                                          100 * sum(map(abs, v)) / len(v), sum(abs(e) > 0.25 for e in v)))
    ncu = list(naive_records(a.device, ncu=True))
    if not ncu:
        print("runs under Nsight Compute: none for device '%s'" % a.device)
        return 0
    shares = [r["metrics"]["lts__t_sectors_srcunit_tex_op_write.sum"]["measured"] /
              r["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]["measured"] for r in ncu]
    print("runs under Nsight Compute: %d; sectors at the L2 / sectors the stores touch: mean %.3f, least %.3f"
          % (len(ncu), sum(shares) / len(shares), min(shares)))
    features, times, pieces = [], [], []
    for r in ncu:
        piece = piece_bytes(r["config"])
        if not piece or piece >= 32:
            continue
        out = r["config"]["matrix_bytes"]
        read_back = max(0.0, r["metrics"]["dram__bytes_read.sum"]["measured"] - out)
        features.append([out / piece, out, read_back])
        times.append(r["metrics"]["gpu__time_duration.sum"]["measured"] * 1e3)  # ns to ps
        pieces.append(piece)
    for cols, label in (([0, 1, 2], "pieces + bytes partly written + bytes read back"),
                        ([0, 2], "pieces + bytes read back")):
        c = relative_fit([[f[i] for i in cols] for f in features], times)
        errs = [sum(f[i] * ci for i, ci in zip(cols, c)) / t - 1 for f, t in zip(features, times)]
        by = {}
        for p, e in zip(pieces, errs):
            by.setdefault(p, []).append(e)
        print("%s (%d runs): %s ps; MAPE %.1f%%; mean by piece: %s" % (
            label, len(times), " / ".join("%.2f" % x for x in c), 100 * sum(map(abs, errs)) / len(errs),
            ", ".join("%d B %+.0f%%" % (p, 100 * sum(v) / len(v)) for p, v in sorted(by.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(main))
