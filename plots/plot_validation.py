"""Validation charts from `memsim-validate` run documents (validate/results/*.json, schema memsim-validate/1).

  bandwidth_<dtype>_<matrix>:  per (matrix, dtype), one panel per block: every kernel's effective bandwidth
                               measured (solid) and predicted by memsim's cost model (hatched), with the run's
                               cudaMemcpy, copy kernel and cuBLAS geam as horizontal lines.
  validation_scatter:          predicted against measured time of every configuration, log-log, with y = x and
                               the +-10% band, coloured by kernel.
  validation_counters:         one panel per Nsight Compute counter: (measured - predicted) / predicted per
                               configuration, by kernel, with the tolerance band the document states; red
                               points are outside it.

Every number is read from the documents: the errors are their "rel_error", the bands their "tolerances".
"""
import math
import os

import matplotlib.pyplot as plt
import numpy as np

from plot_common import InputError, check_pixels, is_number, kernel_colours, plain, save

SCATTER_SIZE = (10.0, 8.0)  # inches
COUNTERS_SIZE = (16.0, 14.0)
BANDWIDTH_PANEL = (5.5, 5.5)  # a panel per block, plus BANDWIDTH_EXTRA inches of width for the legend
BANDWIDTH_EXTRA = 2.5
BASELINES = (("cudaMemcpy_d2d", "cudaMemcpy", "black", "--"), ("copy_kernel", "copy kernel", "#555555", ":"),
             ("cublas_geam", "cuBLAS geam", "#1f77b4", "-."))
DTYPE_MARKERS = {"f16": "s", "f32": "o", "f64": "^"}


def get(obj, *keys):
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            return None
        obj = obj[k]
    return obj


def check_record(name, i, r):
    """The fields of records[i] the charts read: InputError naming the first that is not what memsim-validate
    writes."""
    c = r["config"]
    where = f"{name}: records[{i}].config"
    for key in ("kernel", "dtype"):
        if not isinstance(c.get(key), str):
            raise InputError(f"{where}.{key} is not a string")
    for key, sides in (("matrix", ("width", "height")), ("block", ("x", "y"))):
        v = c.get(key)
        if not isinstance(v, dict) or not all(isinstance(v.get(k), int) and not isinstance(v.get(k), bool)
                                              for k in sides):
            raise InputError(f"{where}.{key} is not an object with integer {' and '.join(sides)}")
    if "metrics" in r and not isinstance(r["metrics"], (dict, type(None))):
        raise InputError(f"{name}: records[{i}].metrics is not an object")


def load_run(name, doc):
    """The run's records with both a measured and a predicted time; InputError when there are none."""
    if not isinstance(doc, dict) or not str(doc.get("schema", "")).startswith("memsim-validate/"):
        raise InputError(f"{name} is not a memsim-validate run document (no 'schema': 'memsim-validate/1')")
    records = doc.get("records")
    if not isinstance(records, list) or not records:
        raise InputError(f"{name} holds no records")
    if not any(isinstance(r, dict) and is_number(get(r, "predicted", "time_us")) for r in records):
        raise InputError(f"{name} holds no predictions (predicted.time_us is null in every record: a --check-only "
                         "run?); the validation charts need memsim's predictions beside measurements")
    for key, kind in (("groups", list), ("tolerances", dict)):
        if key in doc and not isinstance(doc[key], kind):
            raise InputError(f"{name}: '{key}' is not {'a list' if kind is list else 'an object'}")
    for metric, tol in (doc.get("tolerances") or {}).items():
        if not isinstance(tol, dict):
            raise InputError(f"{name}: tolerances.{metric} is not an object")
    paired = []
    for i, r in enumerate(records):
        if not isinstance(r, dict) or not isinstance(r.get("config"), dict):
            raise InputError(f"{name}: records[{i}] is not a memsim-validate record (no 'config')")
        check_record(name, i, r)
        pt, mt = get(r, "predicted", "time_us"), get(r, "measured", "time_us", "median")
        pb, mb = get(r, "predicted", "effective_bandwidth_gbs"), get(r, "measured", "effective_bandwidth_gbs")
        if all(is_number(v) and v > 0 for v in (pt, mt, pb, mb)):
            paired.append(r)
    if not paired:
        raise InputError(f"{name} holds no record with both a measured and a predicted time")
    return paired


def matrix_of(cfg):
    m = cfg.get("matrix") or {}
    return f"{m.get('width')}x{m.get('height')}"


def block_of(cfg):
    b = cfg.get("block") or {}
    return f"{b.get('x')}x{b.get('y')}"


def device_line(runs):
    names = sorted({str(get(d, "context", "device", "name") or "device not recorded") for _, d, _ in runs})
    revs = ", ".join(f"{os.path.basename(n)} ({get(d, 'context', 'git_revision')}, "
                     f"{str(get(d, 'context', 'date'))[:10]})" for n, d, _ in runs)
    return f"{' / '.join(names)}; runs {revs}"


def ordered_kernels(runs):
    seen = []
    for _, _, recs in runs:
        for r in recs:
            k = r["config"].get("kernel")
            if k not in seen:
                seen.append(k)
    return seen


def scatter_figure(runs):
    kernels = ordered_kernels(runs)
    colours = kernel_colours(kernels)
    fig, ax = plt.subplots(figsize=SCATTER_SIZE, layout="constrained")
    lo, hi = math.inf, 0.0
    from matplotlib.lines import Line2D
    kernel_handles, dtypes_seen = [], []
    for k in kernels:
        drawn = False
        for dtype, marker in DTYPE_MARKERS.items():
            pts = [(get(r, "measured", "time_us", "median"), get(r, "predicted", "time_us"))
                   for _, _, recs in runs for r in recs
                   if r["config"].get("kernel") == k and r["config"].get("dtype") == dtype]
            if not pts:
                continue
            drawn = True
            if dtype not in dtypes_seen:
                dtypes_seen.append(dtype)
            x, y = zip(*pts)
            lo, hi = min(lo, *x, *y), max(hi, *x, *y)
            ax.scatter(x, y, s=24, color=colours[k], marker=marker, edgecolors="black", linewidths=0.3, zorder=3)
        if drawn:
            kernel_handles.append(Line2D([], [], marker="o", linestyle="", color=colours[k], markeredgecolor="black",
                                         markeredgewidth=0.3, label=plain(k)))
    lo, hi = lo / 1.3, hi * 1.3
    line = np.geomspace(lo, hi, 50)
    band = ax.fill_between(line, line * 0.9, line * 1.1, color="#2ca02c", alpha=0.25, zorder=1, label="+-10%")
    (ident,) = ax.plot(line, line, color="black", linewidth=1, zorder=2, label="predicted = measured")
    (outer,) = ax.plot(line, line * 0.75, color="#999999", linewidth=0.8, linestyle="--", zorder=2, label="+-25%")
    ax.plot(line, line * 1.25, color="#999999", linewidth=0.8, linestyle="--", zorder=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.grid(True, which="both", color="#eeeeee", linewidth=0.5)
    ax.set_xlabel("measured time (µs, median of the timed launches)", fontsize=9)
    ax.set_ylabel("predicted time (µs, memsim cost model)", fontsize=9)
    dtype_handles = [Line2D([], [], marker=DTYPE_MARKERS[d], linestyle="", color="white", markeredgecolor="black",
                            label=d) for d in dtypes_seen]
    first = ax.legend(handles=kernel_handles, fontsize=7, title="kernel (colour)", title_fontsize=7,
                      loc="upper left", bbox_to_anchor=(1.02, 1.0))
    ax.add_artist(first)
    ax.legend(handles=dtype_handles + [ident, band, outer], fontsize=7, title="dtype (marker)", title_fontsize=7,
              loc="lower left", bbox_to_anchor=(1.02, 0.0))
    stated = []
    for n, d, _ in runs:
        acc = get(d, "model_accuracy", "judged_all_blocks")
        if isinstance(acc, dict) and is_number(acc.get("mape")) and is_number(acc.get("max_ape")):
            stated.append(f"{os.path.basename(n)}: MAPE {100 * acc['mape']:.1f}%, worst {100 * acc['max_ape']:.1f}% "
                          f"over its {acc.get('configurations')} judged configurations")
    n = sum(len(recs) for *_, recs in runs)
    title = f"Cost model against measurement: {n} configurations\n{device_line(runs)}"
    if stated:
        title += "\nas the documents state it: " + "\n".join(stated)
    fig.suptitle(plain(title), fontsize=8.5)
    return fig


def short_metric(name):
    return name.replace("_pipe_lsu", "").replace(".sum", "")


def counters_figure(runs):
    kernels = ordered_kernels(runs)
    metrics = []
    for _, _, recs in runs:
        for r in recs:
            for m, v in (r.get("metrics") or {}).items():  # those memsim predicts and the run measured
                if m not in metrics and isinstance(v, dict) and is_number(v.get("rel_error")):
                    metrics.append(m)
    if not metrics:
        raise InputError("the run documents hold no Nsight Compute counters (run memsim-validate with --ncu)")
    cols = 3
    nrows = math.ceil(len(metrics) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=COUNTERS_SIZE, squeeze=False, layout="constrained")
    tolerances = {}
    for _, d, _ in runs:
        if isinstance(d.get("tolerances"), dict):
            tolerances.update(d["tolerances"])
    rng = np.random.default_rng(0)  # horizontal jitter only, so the points of one kernel do not hide each other
    for idx, metric in enumerate(metrics):
        ax = axes[idx // cols][idx % cols]
        within = total = 0
        for ki, k in enumerate(kernels):
            ok_pts, bad_pts = [], []
            for _, _, recs in runs:
                for r in recs:
                    m = get(r, "metrics", metric)
                    if r["config"].get("kernel") != k or not isinstance(m, dict) or not is_number(m.get("rel_error")):
                        continue
                    total += 1
                    good = m.get("within_tolerance") is not False
                    within += good
                    (ok_pts if good else bad_pts).append(100 * m["rel_error"])
            for pts, colour in ((ok_pts, "#2ca02c"), (bad_pts, "#d62728")):
                if pts:
                    ax.scatter(ki + rng.uniform(-0.25, 0.25, len(pts)), pts, s=9, color=colour, zorder=3,
                               edgecolors="none")
        tol = tolerances.get(metric) or {}
        kind = tol.get("kind", "none stated")
        if kind == "relative" and is_number(tol.get("below")) and is_number(tol.get("above")):
            ax.axhspan(-100 * tol["below"], 100 * tol["above"], color="#2ca02c", alpha=0.12, zorder=1)
            band = f"band -{100 * tol['below']:.0f}%..+{100 * tol['above']:.0f}%"
        elif kind == "exact":
            band = "must be exact"
        elif kind == "bounded":
            band = "between memsim's count and the instructions reached"
        else:
            band = "no tolerance stated"
        ax.axhline(0, color="black", linewidth=0.8, zorder=2)
        ax.set_title(plain(f"{short_metric(metric)}\n{within} of {total} within ({band})"), fontsize=7)
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels([plain(k) for k in kernels], rotation=90, fontsize=6)
        ax.tick_params(axis="y", labelsize=6)
        ax.set_xlim(-0.6, len(kernels) - 0.4)
        ax.set_ylabel("(measured - predicted) / predicted (%)", fontsize=6)
        ax.grid(True, axis="y", color="#eeeeee", linewidth=0.5)
        lo, hi = ax.get_ylim()
        ax.set_ylim(min(lo, -2), max(hi, 2))
    for idx in range(len(metrics), nrows * cols):
        axes[idx // cols][idx % cols].axis("off")
    fig.suptitle(plain("Nsight Compute counters: measured against memsim, per kernel (green within the stated "
                       "tolerance, red outside; shaded: the band)\n" + device_line(runs)), fontsize=9)
    return fig


def bandwidth_groups(runs):
    """{(dtype, matrix): [(block, [records]), ...]} and the baselines per (dtype, matrix), in document order."""
    groups, baselines = {}, {}
    for _, d, recs in runs:
        for g in d.get("groups") or []:
            if isinstance(g, dict) and isinstance(g.get("baselines"), dict) and isinstance(g.get("dtype"), str) \
                    and isinstance(g.get("matrix"), str):
                baselines[(g.get("dtype"), g.get("matrix"))] = g["baselines"]
        for r in recs:
            key = (r["config"].get("dtype"), matrix_of(r["config"]))
            blocks = groups.setdefault(key, {})
            blocks.setdefault(block_of(r["config"]), []).append(r)
    return {k: list(v.items()) for k, v in groups.items()}, baselines


def bandwidth_size(nblocks):
    return (BANDWIDTH_PANEL[0] * nblocks + BANDWIDTH_EXTRA, BANDWIDTH_PANEL[1])


def bandwidth_figure(runs, key, blocks, baselines, colours):
    dtype, matrix = key
    fig, axes = plt.subplots(1, len(blocks), figsize=bandwidth_size(len(blocks)), squeeze=False, sharey=True,
                             layout="constrained")
    top = 0.0
    notes = []
    for c, (block, recs) in enumerate(blocks):
        ax = axes[0][c]
        names = [r["config"].get("kernel") for r in recs]
        x = np.arange(len(recs))
        meas = [get(r, "measured", "effective_bandwidth_gbs") for r in recs]
        pred = [get(r, "predicted", "effective_bandwidth_gbs") for r in recs]
        top = max(top, *meas, *pred)
        ax.bar(x - 0.2, meas, width=0.4, color=[colours[k] for k in names], edgecolor="black", linewidth=0.4,
               label="measured" if c == 0 else None)
        ax.bar(x + 0.2, pred, width=0.4, color="white", edgecolor=[colours[k] for k in names], hatch="////",
               linewidth=0.8, label="predicted (memsim)" if c == 0 else None)
        for base, label, colour, style in BASELINES:
            b = (baselines.get(key) or {}).get(base)
            bw = b.get("effective_bandwidth_gbs") if isinstance(b, dict) else None
            if is_number(bw):
                top = max(top, bw)
                ax.axhline(bw, color=colour, linestyle=style, linewidth=1.2,
                           label=f"{label} {bw:.0f} GB/s" if c == 0 else None)
            elif c == 0:
                why = b.get("note") if isinstance(b, dict) else None
                notes.append(f"{label}: not measured{' (' + str(why) + ')' if why else ''}")
        ax.set_xticks(x)
        ax.set_xticklabels([plain(k) for k in names], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"block {block}", fontsize=9)
        ax.grid(True, axis="y", color="#eeeeee", linewidth=0.5)
        ax.tick_params(axis="y", labelsize=7)
    axes[0][0].set_ylabel("effective bandwidth (GB/s; 2 x matrix bytes / time)", fontsize=8)
    axes[0][0].set_ylim(0, top * 1.08)
    handles, labels = axes[0][0].get_legend_handles_labels()
    axes[0][-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7)
    title = (f"Effective bandwidth at {matrix} {dtype}: measured (solid) and predicted (hatched) per kernel; "
             f"lines: the run's baselines\n{device_line(runs)}")
    if notes:
        title += "\n" + "; ".join(notes)
    fig.suptitle(plain(title), fontsize=8.5)
    return fig


def validation_jobs(docs, out_dir, fmt, dpi):
    """[(path, make_figure)] for every chart, all checked before any is drawn."""
    runs = [(name, doc, load_run(name, doc)) for name, doc in docs]
    groups, baselines = bandwidth_groups(runs)
    colours = kernel_colours(ordered_kernels(runs))
    jobs = [(os.path.join(out_dir, f"validation_scatter.{fmt}"), SCATTER_SIZE, lambda: scatter_figure(runs))]
    if any(isinstance(v, dict) and is_number(v.get("rel_error"))  # a run without --ncu has no counters
           for *_, recs in runs for r in recs for v in (r.get("metrics") or {}).values()):
        jobs.append((os.path.join(out_dir, f"validation_counters.{fmt}"), COUNTERS_SIZE,
                     lambda: counters_figure(runs)))
    for key, blocks in groups.items():
        path = os.path.join(out_dir, f"bandwidth_{key[0]}_{key[1]}.{fmt}")
        jobs.append((path, bandwidth_size(len(blocks)),
                     lambda key=key, blocks=blocks: bandwidth_figure(runs, key, blocks, baselines, colours)))
    for path, size, _ in jobs:
        check_pixels(path, size, dpi)
    return jobs


def draw_validation(docs, out_dir, fmt, dpi):
    jobs = validation_jobs(docs, out_dir, fmt, dpi)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create --out {out_dir}: {e.strerror or e}")
    written = []
    for path, _, make in jobs:
        save(make(), path, dpi)
        written.append(path)
    return written
