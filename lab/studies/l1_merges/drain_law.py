#!/usr/bin/env python3
"""Would a merged share read off memsim-microbench --drain-merges mend the held-out sets? A study, not a charge
(README.md here):

  drain_law.py --memsim build/app/memsim [--threads N] > RESULTS.txt

The law, from the drain runs alone (lab/calibration/results/h100_drain_merges_table.txt): the share of a warp's
next-store half-sector pairs that the L1 merges, at as many blocks an SM as fit, after a barrier for a kernel that
stages through shared memory and straight from registers for one that does not, interpolated in the warps a block
(1 to 16) and in log2 of the stores a warp (2, 8, 32; clamped), for lanes of 2 and of 4 bytes (others: none).
For every timed configuration of every held-out set (lab/heldout/results/DEV[_X]/, both cards) memsim gives the
pieces and the pairs' share (prediction.partial_store_sectors, next_store_pair_share; next_store_half_pair_share
before 2026-12-07, when it counted halves only); the predicted merged share m = share x law turns into L2
writes, the L1 store sectors less m x pieces / 2, which memsim then takes as given (--l2-write-sectors). Printed: each set's MAPE as modelled and with the law, and the configurations the law
changes. The profiles are not refitted (their strided runs hold no next-store pairs).

It judged the law before the profiles charged it (results/drain_law.txt: profiles of 3e9232b); with the profiles
since (cost.drain_merges, the same law in model/cost.cpp) the two columns agree.

Standard library only. Exit 2 with one line on stderr for a memsim that fails or a table that cannot be read.
"""
import argparse
import glob
import math
import os
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: one place that spells memsim's command line)

TABLE = os.path.join(ROOT, "lab", "calibration", "results", "h100_drain_merges_table.txt")
LOG_STORES = (1.0, 3.0, 5.0)  # log2 of 2, 8, 32 stores a warp


def read_law(path):
    """{(lane bytes, shared): {warps: [merged at 2, 8, 32 stores]}} of the full-occupancy runs."""
    law = {}
    for line in memsim_run.read_text(path, "drain_merges_table.py's table").splitlines()[2:]:
        f = line.split()
        lane, stores, warps, blocks, path, merged = int(f[0]), int(f[2]), int(f[3]), int(f[4]), f[5], float(f[7])
        if blocks <= 2:  # the capped runs
            continue
        law.setdefault((lane, path == "shared"), {}).setdefault(warps, {})[stores] = merged
    return {k: {w: [v[2], v[8], v[32]] for w, v in t.items()} for k, t in law.items()}


def interpolate(xs, ys, x):
    x = min(max(x, xs[0]), xs[-1])
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            t = (x - xs[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] > xs[i] else 0
            return ys[i] + t * (ys[i + 1] - ys[i])
    return ys[-1]


def law_share(law, lane, shared, warps, stores):
    table = law.get((lane, shared))
    if not table:
        return 0.0
    ws = sorted(table)
    by_warps = [interpolate(LOG_STORES, table[w], math.log2(max(stores, 1))) for w in ws]
    return interpolate(ws, by_warps, warps)


def memsim_json(memsim, c, cache, writes=None):
    extra = ["--device", c["device"], "--no-compile"]
    if writes is not None:
        extra += ["--l2-write-sectors", str(int(round(writes)))]
    return memsim_run.memsim_json_for_config(memsim, c, extra, env=dict(os.environ, MEMSIM_CACHE_DIR=cache))


def runs():
    """(set name, device, record) of every timed held-out run, sets in their order."""
    base = os.path.join(ROOT, "lab", "heldout", "results")
    for dev in ("h100", "h200"):
        for folder in [os.path.join(base, dev)] + sorted(glob.glob(os.path.join(base, dev + "_?"))):
            name = os.path.basename(folder)
            for path in memsim_run.run_files(folder) + memsim_run.run_files(os.path.join(folder, "runs")):
                for r in memsim_run.read_validation_run(path)["records"]:
                    yield name, dev, r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memsim", required=True)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    law = read_law(TABLE)
    cache = tempfile.mkdtemp()

    def one(item):
        name, dev, r = item
        c = dict(r["config"], device=dev)
        measured = r["measured"]["time_us"]["median"]
        j = memsim_json(a.memsim, c, cache)
        p = j["prediction"]
        modelled = p["time_us"] / measured - 1
        lane = {"f16": 2, "f32": 4, "f64": 8}[c["dtype"]]
        share = p.get("next_store_pair_share", p.get("next_store_half_pair_share", 0))
        if share <= 0 or lane > 4:
            return name, r["id"], modelled, modelled, 0.0
        warps = (c["block"]["x"] * c["block"]["y"] + 31) // 32
        st_requests = j["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
        st_sectors = j["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        blocks = c["grid"]["x"] * c["grid"]["y"]
        stores = st_requests / (blocks * warps)
        merged = share * law_share(law, lane, c.get("shared_bytes_per_block", 0) > 0, warps, stores)
        writes = st_sectors - merged * p["partial_store_sectors"] / 2
        with_law = memsim_json(a.memsim, c, cache, writes)["prediction"]["time_us"] / measured - 1
        return name, r["id"], modelled, with_law, merged

    results = memsim_run.parallel_map(one, list(runs()), a.threads)
    sets = {}
    for name, rid, modelled, with_law, merged in results:
        sets.setdefault(name, []).append((rid, modelled, with_law, merged))
    print("set        n    MAPE modelled  with the law   worst modelled  worst with the law  changed")
    for name, rows in sets.items():
        mape = [100 * sum(abs(r[i]) for r in rows) / len(rows) for i in (1, 2)]
        worst = [100 * max((r[i] for r in rows), key=abs) for i in (1, 2)]
        changed = sum(1 for r in rows if r[3] > 0)
        print(f"{name:<9} {len(rows):>4}  {mape[0]:>12.1f}%  {mape[1]:>11.1f}%  {worst[0]:>+14.1f}%  "
              f"{worst[1]:>+17.1f}%  {changed:>7}")
    print("\nThe configurations the law changes (merged share predicted):")
    for name, rows in sets.items():
        for rid, modelled, with_law, merged in rows:
            if merged > 0:
                print(f"{name:<9} {rid:<58} merged {merged:4.2f}  {100 * modelled:+6.1f}% -> {100 * with_law:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(main))
