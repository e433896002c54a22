#!/usr/bin/env python3
"""How much of each configuration's partial-sector stores the L1 merges before the L2, from a held-out set's
Nsight Compute runs (docs/history/model_notebook.md, "The L1 merges a sector's pieces from two warps"):

  merged_pieces.py NCU_DIR [--timed TIMED_DIR --memsim MEMSIM --device DEVICE]

For every configuration whose stores write more sectors than whole ones would (L1 store sectors, memsim's count,
which equals Nsight Compute's), the share of the extra sector writes that never reach the L2:
(L1 store sectors - lts__t_sectors_srcunit_tex_op_write.sum) / (L1 store sectors - the output's sectors); 0 is
every piece its own write, as memsim prices them. With --timed, --memsim and --device it adds memsim's error against
the timed run's median, as modelled and with the L2's writes given (--l2-write-sectors), and each kernel's mean
|error| both ways (memsim --no-compile: the shipped table or the estimate, unless MEMSIM_CACHE_DIR holds the
configuration). Sorted by kernel, then by the share.

Standard library only. Exit 2 with one line on stderr for a directory without runs or a memsim that fails.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validate"))
import memsim_run  # noqa: E402  (validate/memsim_run.py: one place that spells memsim's command line)
from memsim_run import Error  # noqa: E402


def records(folder):
    files = memsim_run.run_files(folder) + memsim_run.run_files(os.path.join(folder, "runs"))
    if not files:
        raise Error(f"{folder}: no run files (*.json[.gz] or runs/*.json[.gz])")
    for path in files:
        yield from memsim_run.read_validation_run(path)["records"]


def predicted_us(memsim, device, c, l2_writes=None):
    extra = ["--device", device, "--no-compile"]
    if l2_writes is not None:
        extra += ["--l2-write-sectors", str(int(l2_writes))]
    return memsim_run.memsim_json_for_config(memsim, c, extra)["prediction"]["time_us"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ncu_dir")
    ap.add_argument("--timed")
    ap.add_argument("--memsim")
    ap.add_argument("--device")
    a = ap.parse_args()
    if bool(a.timed) != bool(a.memsim) or bool(a.memsim) != bool(a.device):
        raise Error("--timed, --memsim and --device go together")
    timed = {r["id"]: r["measured"]["time_us"]["median"] for r in records(a.timed)} if a.timed else {}
    rows = []
    for r in records(a.ncu_dir):
        c, m = r["config"], r["metrics"]
        l1 = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", {}).get("predicted")
        l2 = m.get("lts__t_sectors_srcunit_tex_op_write.sum", {}).get("measured")
        whole = c["matrix_bytes"] / 32
        if not l1 or not l2 or l1 <= 1.05 * whole:
            continue
        errors = None
        if a.timed and r["id"] in timed:
            t = timed[r["id"]]
            errors = (predicted_us(a.memsim, a.device, c) / t - 1, predicted_us(a.memsim, a.device, c, l2) / t - 1)
        rows.append((c["kernel"], (l1 - l2) / (l1 - whole), l1 / whole, r["id"], errors))
    for kernel, merged, pieces, rid, errors in sorted(rows):
        more = f"  memsim {100 * errors[0]:+6.1f}%, with the L2's writes given {100 * errors[1]:+6.1f}%" if errors else ""
        print(f"{rid:<56} pieces a sector {pieces:5.2f}  merged {merged:5.2f}{more}")
    # The mean |error| of each kernel group, modelled and with the L2's writes given.
    timed_rows = [r for r in rows if r[4]]
    groups = {}
    for kernel, _, _, _, errors in timed_rows:
        for name in ("all", kernel):
            groups.setdefault(name, []).append(errors)
    for name, errs in sorted(groups.items(), key=lambda g: (g[0] != "all", g[0])):
        mean = [100 * sum(abs(e[i]) for e in errs) / len(errs) for i in (0, 1)]
        worst = [100 * max((e[i] for e in errs), key=abs) for i in (0, 1)]
        print(f"{name:<12} n={len(errs):<4} mean |error| {mean[0]:5.1f}% -> {mean[1]:5.1f}% with the writes given, "
              f"worst {worst[0]:+6.1f}% -> {worst[1]:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(memsim_run.main_guard(main))
