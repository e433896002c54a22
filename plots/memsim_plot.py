#!/usr/bin/env python3
"""Heatmaps from memsim's JSON report (`memsim --format json`).

  bank usage:       one panel per shared-memory site; rows = the warp instructions of the first block (launch
                    order), columns = banks, value = distinct words the bank delivered ("first_block_bank_words").
                    A bank conflict shows as a hot bank: one cell holding many words with the rest of its row
                    empty, where a conflict-free instruction spreads one word over every bank.
  partition usage:  rows = windows of resident blocks, columns = DRAM partitions, value = bytes served; loads
                    and stores in separate panels (the report's "partitions" object). Camping shows as one or
                    two hot partitions per row.

The script only draws what the report holds; every number comes from the simulator.

  memsim_plot.py report.json [more.json ...] [--out DIR] [--what banks,partitions] [--compare NAME] [--dpi N]

Writes DIR/<report stem>_banks.png and DIR/<report stem>_partitions.png for every report, and with --compare,
DIR/NAME_banks.png and DIR/NAME_partitions.png with the reports side by side on one colour scale.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        report = json.load(f)
    if not isinstance(report, dict) or "sites" not in report:
        raise SystemExit(f"memsim_plot: {path} is not a memsim JSON report (no 'sites')")
    return report


def label_of(report, path):
    cfg = report.get("config", {})
    m = cfg.get("matrix", {})
    label = report.get("kernel", os.path.basename(path))
    if m:
        label += f" {m.get('width')}x{m.get('height')} {cfg.get('dtype', '')}"
    return label


def bank_panels(report):
    """(title, rows) for every shared site that carries first-block bank words."""
    panels = []
    for s in report["sites"]:
        rows = s.get("first_block_bank_words")
        if s.get("space") != "shared" or not rows:
            continue
        title = f"{s['name']}  {s.get('expr', '')}\n{s.get('wavefronts_per_instruction', 0):.2f} wavefronts/inst, " \
                f"{s.get('bank_conflicts', 0):,} conflicts"
        panels.append((title, rows))
    return panels


def partition_panels(report):
    """(title, rows, row labels) for loads and stores, or [] when the report has no partition results."""
    p = report.get("partitions")
    if not p:
        return []
    w = p["windows"]
    mapping = p["mapping"]
    imb = p["imbalance"]
    labels = [f"{a}-{b - 1}" for a, b in zip(w["first_block"], w["last_block"])]
    out = []
    for key, name in (("ld", "loads"), ("st", "stores")):
        title = f"{name}: imbalance {imb[key]:.2f}"
        out.append((title, w[f"{key}_bytes"], labels))
    sub = f"{mapping['partitions']} x {mapping['granularity_bytes']} B {mapping['policy']}" + \
          (" (ASSUMED mapping)" if mapping.get("assumed") else "") + \
          f"\nR = {p['schedule']['resident_blocks']} resident, step {p['schedule']['window_step']}"
    if w.get("downsampled"):
        sub += f"\n{w['shown']} of {w['total']} windows shown (1 in {w['every']})"
    return out, sub


def heat(ax, rows, vmax, xlabel, ylabel, title, ylabels=None):
    im = ax.imshow(rows, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0, vmax=vmax or 1)
    ax.set_title(title, fontsize=8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ncols = len(rows[0]) if rows else 0
    ax.set_xticks(range(ncols))
    ax.set_xticklabels([str(i) for i in range(ncols)], fontsize=6)
    ax.tick_params(axis="y", labelsize=6)
    if ylabels:
        step = max(1, len(ylabels) // 16)
        ticks = list(range(0, len(ylabels), step))
        ax.set_yticks(ticks)
        ax.set_yticklabels([ylabels[i] for i in ticks], fontsize=6)
    return im


def row_max(rows):
    return max((max(r) for r in rows if r), default=0)


def draw_banks(reports, out_path, dpi):
    """reports: [(label, report)]; one column per report, one row per shared site."""
    columns = [(label, bank_panels(r)) for label, r in reports]
    columns = [(label, panels) for label, panels in columns if panels]
    if not columns:
        return False
    nrows = max(len(p) for _, p in columns)
    vmax = max(row_max(rows) for _, panels in columns for _, rows in panels)
    fig, axes = plt.subplots(nrows, len(columns), figsize=(5.2 * len(columns) + 1.0, 3.8 * nrows), squeeze=False,
                             layout="constrained")
    im = None
    for c, (label, panels) in enumerate(columns):
        for r in range(nrows):
            ax = axes[r][c]
            if r >= len(panels):
                ax.axis("off")
                continue
            title, rows = panels[r]
            im = heat(ax, rows, vmax, "bank", "warp instruction of block 0", f"{label}: {title}")
    fig.colorbar(im, ax=axes, shrink=0.8, label="distinct words delivered")
    fig.suptitle("Shared-memory bank usage of block 0\na conflict is a hot bank: one cell holding many words, the "
                 "rest of its row empty", fontsize=9)
    fig.savefig(out_path, dpi=dpi)
    plt.close(fig)
    return True


def draw_partitions(reports, out_path, dpi):
    columns = []
    for label, r in reports:
        got = partition_panels(r)
        if got:
            columns.append((label, got[0], got[1]))
    if not columns:
        return False
    vmax = max(row_max(rows) for _, panels, _ in columns for _, rows, _ in panels) / 1024.0
    fig, axes = plt.subplots(1, 2 * len(columns), figsize=(3.4 * 2 * len(columns) + 1.0, 6.5), squeeze=False,
                             layout="constrained")
    im = None
    for c, (label, panels, sub) in enumerate(columns):
        for d, (title, rows, ylabels) in enumerate(panels):
            ax = axes[0][2 * c + d]
            kib = [[b / 1024.0 for b in row] for row in rows]
            ylabel = "window: resident blocks (linear ids)" if d == 0 else ""
            im = heat(ax, kib, vmax, "partition", ylabel, f"{label}\n{title}", ylabels)
            ax.set_xlabel("partition\n" + sub if d == 0 else "partition", fontsize=7)
    fig.colorbar(im, ax=axes, shrink=0.8, label="KiB served in the window")
    fig.suptitle("DRAM partition usage per window of resident blocks\ncamping: hot cells, the rest of the row idle; "
                 "imbalance = max/mean, traffic-weighted", fontsize=9)
    fig.savefig(out_path, dpi=dpi)
    plt.close(fig)
    return True


def main(argv):
    ap = argparse.ArgumentParser(description="Bank and partition heatmaps from memsim JSON reports.")
    ap.add_argument("reports", nargs="+", help="memsim --format json output files")
    ap.add_argument("--out", default=".", help="output directory (default: current)")
    ap.add_argument("--what", default="banks,partitions", help="comma list of banks, partitions")
    ap.add_argument("--compare", metavar="NAME", help="also draw the reports side by side as NAME_*.png")
    ap.add_argument("--dpi", type=int, default=110, help="resolution of the PNGs (default 110)")
    args = ap.parse_args(argv)
    what = {w.strip() for w in args.what.split(",") if w.strip()}
    unknown = what - {"banks", "partitions"}
    if unknown:
        ap.error(f"unknown --what entries: {', '.join(sorted(unknown))}")
    os.makedirs(args.out, exist_ok=True)

    loaded = [(p, load(p)) for p in args.reports]
    written = []
    groups = []
    for p, r in loaded:
        stem = os.path.splitext(os.path.basename(p))[0]
        if stem not in [g[1] for g in groups]:  # the same report given twice is drawn once
            groups.append(([(label_of(r, p), r)], stem))
    if args.compare:
        groups.append(([(label_of(r, p), r) for p, r in loaded], args.compare))
    for reports, stem in groups:
        if "banks" in what:
            path = os.path.join(args.out, f"{stem}_banks.png")
            if draw_banks(reports, path, args.dpi):
                written.append(path)
        if "partitions" in what:
            path = os.path.join(args.out, f"{stem}_partitions.png")
            if draw_partitions(reports, path, args.dpi):
                written.append(path)
    for path in written:
        print(path)
    if not written:
        print("memsim_plot: nothing to draw (no shared sites with bank words, no 'partitions')", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
