#!/usr/bin/env python3
"""Pictures of memsim's JSON: one command per picture, PNG or SVG by the output's extension.

  memsim_plot.py validation RUN.json [RUN2.json ...] --out DIR [--format png|svg]   (plot_validation.py)
  memsim_plot.py banks FILE.json --out banks.png [--site NAME|N] [--instruction N]     (plot_maps.py)
  memsim_plot.py sectors FILE.json [more.json ...] --out sectors.svg                  (plot_maps.py)
  memsim_plot.py partitions FILE.json --out partitions.png

`memsim --plot KIND --plot-out FILE` runs the last three on its own replay (FILE.json: the data, not drawn);
FILE "-" reads standard input. Without a command word the script draws the heatmaps below (the first form it
had), several reports at once:

  bank usage:       one panel per shared-memory site; rows = the warp instructions of the first block (launch
                    order), columns = banks, value = distinct words the bank delivered ("first_block_bank_words").
                    A bank conflict shows as a hot bank: one cell holding many words with the rest of its row
                    empty, where a conflict-free instruction spreads one word over every bank.
  partition usage:  rows = windows of resident blocks, columns = DRAM partitions, value = bytes served; loads
                    and stores in separate panels (the report's "partitions" object). Camping shows as one or
                    two hot partitions per row.

The script only draws what the report holds; every number comes from the simulator.

  memsim_plot.py report.json [more.json ...] [--out DIR] [--what banks,partitions] [--compare NAME] [--dpi N]

Writes DIR/<name>_banks.png and DIR/<name>_partitions.png for every report, and with --compare,
DIR/NAME_banks.png and DIR/NAME_partitions.png with the reports side by side on one colour scale. <name> is the
report's file name without its extension. Where different files share it, no figure overwrites another: they
get the file name with its extension if that differs (r.json r.txt: r.json_*, r.txt_*), else their parent
directories in front until the names differ (a/r.json b/r.json: a_r_*, b_r_*); the names written are printed.
The same file given twice is drawn once. A --compare NAME that is also a report's <name> is refused.

Anything a user can get wrong (a missing or unreadable file, a file that is not a memsim JSON report or has
malformed "sites" or "partitions", a bad option value, an --out that is not a directory) prints one line on
stderr and exits with code 2; a figure beyond matplotlib's 65535 pixels a side is refused the same way, before
anything is written. So is a picture the reports cannot give, with its cause: a --what kind asked for that a
report lacks (no shared-memory site with bank words; no partition results, which memsim counts with
--partitions), or, with the default --what, reports that hold neither. A bug prints one line too, "internal
error", and exits with 1, as memsim does.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling modules, however it is loaded
try:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError:
    print(f"{os.environ.get('MEMSIM_PLOT_PROG') or 'memsim_plot'}: drawing needs matplotlib, which {sys.executable} "
          "cannot import: install python3-matplotlib (apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(2)

from plot_common import (MAX_PIXELS, MAX_DPI, MIN_DPI, PROG, InputError, Malformed, check_dpi,  # noqa: E402
                         check_out_file, check_pixels, config_text, device_of, is_number, plain, read_json, save)
import plot_maps  # noqa: E402
import plot_validation  # noqa: E402

COMMANDS = ("validation", "banks", "sectors", "partitions")
# What a heatmap may hold: a GPU has at most 64 banks (model/profile.cpp), a profile at most 4096 partitions, and
# a figure of more rows than this says nothing more (memsim --plot keeps 256 windows by default).
MAX_BANKS, MAX_PARTITIONS, MAX_ROWS = 64, 4096, 1 << 21


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print its usage too: one line, like every other error
        raise InputError(f"{message} (see --help)")


def load(path):
    report = read_json(path, "memsim writes its report with --format json")
    if not isinstance(report, dict) or "sites" not in report:
        raise InputError(f"{path} is not a memsim JSON report (no 'sites')")
    try:
        bank_panels(report)
        partition_panels(report)
    except Malformed as e:
        raise InputError(f"{path} is not a well-formed memsim JSON report: {e}")
    return report


def field(obj, key, where, kind=None):
    """obj[key], which must exist; kind: "number", "object", "text" or None (any value)."""
    if key not in obj:
        raise Malformed(f"{where} has no '{key}'")
    v = obj[key]
    if kind == "number" and not is_number(v):
        raise Malformed(f"{where}.{key} is not a number")
    if kind == "object" and not isinstance(v, dict):
        raise Malformed(f"{where}.{key} is not an object")
    if kind == "text" and not isinstance(v, str):
        raise Malformed(f"{where}.{key} is not a string")
    return v


def table(rows, where):
    """rows must be a list of equally long, non-empty lists of finite numbers >= 0 (a heatmap's cells)."""
    if not isinstance(rows, list):
        raise Malformed(f"{where} is not a list of rows")
    for i, r in enumerate(rows):
        if not isinstance(r, list) or not r:
            raise Malformed(f"{where}[{i}] is not a non-empty list of numbers")
        if len(r) != len(rows[0]):
            raise Malformed(f"{where}[{i}] has {len(r)} values where row 0 has {len(rows[0])}")
        for j, v in enumerate(r):
            if not is_number(v) or v < 0:
                raise Malformed(f"{where}[{i}][{j}] is not a finite number >= 0")
    return rows


def label_of(report, path):
    cfg = report.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}
    m = cfg.get("matrix")
    kernel = report.get("kernel")
    label = kernel if isinstance(kernel, str) and kernel else os.path.basename(path)
    if isinstance(m, dict) and m:
        label += f" {m.get('width')}x{m.get('height')} {cfg.get('dtype', '')}"
    return label


def bank_panels(report):
    """(title, rows) for every shared site that carries first-block bank words."""
    sites = report["sites"]
    if not isinstance(sites, list):
        raise Malformed("'sites' is not a list")
    panels = []
    for i, s in enumerate(sites):
        where = f"sites[{i}]"
        if not isinstance(s, dict):
            raise Malformed(f"{where} is not an object")
        rows = s.get("first_block_bank_words")
        if s.get("space") != "shared" or rows is None or rows == []:
            continue
        table(rows, f"{where}.first_block_bank_words")
        if len(rows[0]) > MAX_BANKS:  # a heatmap of 100,000 columns drew for minutes
            raise Malformed(f"{where}.first_block_bank_words has {len(rows[0])} banks a row; a GPU has at most "
                            f"{MAX_BANKS}")
        if len(rows) > MAX_ROWS:
            raise Malformed(f"{where}.first_block_bank_words has {len(rows)} rows, more than {MAX_ROWS}")
        name = field(s, "name", where, "text")
        wpi = s.get("wavefronts_per_instruction", 0)
        conflicts = s.get("bank_conflicts", 0)
        for key, v in (("wavefronts_per_instruction", wpi), ("bank_conflicts", conflicts)):
            if not is_number(v):
                raise Malformed(f"{where}.{key} is not a number")
        title = f"{name}  {s.get('expr', '')}\n{wpi:.2f} wavefronts/inst, {conflicts:,} conflicts"
        panels.append((title, rows))
    return panels


def partition_panels(report):
    """(title, rows, row labels) for loads and stores, or [] when the report has no partition results."""
    p = report.get("partitions")
    if p is None:
        return []
    if not isinstance(p, dict):
        raise Malformed("'partitions' is not an object")
    w = field(p, "windows", "partitions", "object")
    mapping = field(p, "mapping", "partitions", "object")
    imb = field(p, "imbalance", "partitions", "object")
    schedule = field(p, "schedule", "partitions", "object")
    bounds = []
    for key in ("first_block", "last_block"):
        v = field(w, key, "partitions.windows")
        if not isinstance(v, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in v):
            raise Malformed(f"partitions.windows.{key} is not a list of integers")
        bounds.append(v)
    if not bounds[0]:
        raise Malformed("partitions.windows holds no windows")
    labels = [f"{a}-{b - 1}" for a, b in zip(*bounds)]
    out = []
    for key, name in (("ld", "loads"), ("st", "stores")):
        rows = table(field(w, f"{key}_bytes", "partitions.windows"), f"partitions.windows.{key}_bytes")
        if len(rows[0]) > MAX_PARTITIONS or len(rows) > MAX_ROWS:
            raise Malformed(f"partitions.windows.{key}_bytes has {len(rows)} windows of {len(rows[0])} partitions; "
                            f"memsim writes at most {MAX_ROWS} of at most {MAX_PARTITIONS}")
        for other, n in (("first_block", len(bounds[0])), ("last_block", len(bounds[1]))):
            if len(rows) != n:
                raise Malformed(f"partitions.windows.{key}_bytes has {len(rows)} rows but {other} {n} windows")
        title = f"{name}: imbalance {field(imb, key, 'partitions.imbalance', 'number'):.2f}"
        out.append((title, rows, labels))
    m = [field(mapping, k, "partitions.mapping") for k in ("partitions", "granularity_bytes", "policy")]
    sub = f"{m[0]} x {m[1]} B {m[2]}" + (" (ASSUMED mapping)" if mapping.get("assumed") else "") + \
          f"\nR = {field(schedule, 'resident_blocks', 'partitions.schedule')} resident, " \
          f"step {field(schedule, 'window_step', 'partitions.schedule')}"
    if w.get("downsampled"):
        shown, total, every = (field(w, k, "partitions.windows") for k in ("shown", "total", "every"))
        sub += f"\n{shown} of {total} windows shown (1 in {every})"
    return out, sub


def heat(ax, rows, vmax, xlabel, ylabel, title, ylabels=None):
    # Zero (an idle bank or partition) is white, below the colour scale, so that one word per bank (a
    # conflict-free instruction) does not look like none.
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_under("white")
    tiny = (vmax or 1) * 1e-9
    im = ax.imshow(rows, aspect="auto", interpolation="nearest", cmap=cmap, vmin=tiny, vmax=vmax or 1)
    ax.set_title(plain(title), fontsize=8)
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


def title_suffix(reports):
    """The device, and the configuration when one report is drawn (side by side, each panel names its own)."""
    devices = sorted({device_of(r) for _, r in reports})
    text = "\n" + " / ".join(devices)
    if len(reports) == 1:
        text += ", " + config_text(reports[0][1].get("config"))
    return plain(text)


def row_max(rows):
    return max((max(r) for r in rows if r), default=0)


def bank_figure(reports):
    """(columns, figure size in inches) for draw_banks, or None when no report has bank words."""
    columns = [(label, bank_panels(r)) for label, r in reports]
    columns = [(label, panels) for label, panels in columns if panels]
    if not columns:
        return None
    nrows = max(len(p) for _, p in columns)
    return columns, (5.2 * len(columns) + 1.0, 3.8 * nrows)


def draw_banks(reports, out_path, dpi):
    """reports: [(label, report)]; one column per report, one row per shared site."""
    got = bank_figure(reports)
    if not got:
        return False
    columns, size = got
    nrows = max(len(p) for _, p in columns)
    vmax = max(row_max(rows) for _, panels in columns for _, rows in panels)
    fig, axes = plt.subplots(nrows, len(columns), figsize=size, squeeze=False, layout="constrained")
    im = None
    for c, (label, panels) in enumerate(columns):
        for r in range(nrows):
            ax = axes[r][c]
            if r >= len(panels):
                ax.axis("off")
                continue
            title, rows = panels[r]
            im = heat(ax, rows, vmax, "bank", "warp instruction of block 0", f"{label}: {title}")
    fig.colorbar(im, ax=axes, shrink=0.8, label="distinct words delivered (white: none)")
    fig.suptitle("Shared-memory bank usage of block 0\na conflict is a hot bank: one cell holding many words, the "
                 "rest of its row empty" + title_suffix(reports), fontsize=9)
    save(fig, out_path, dpi)
    return True


def partition_figure(reports):
    """(columns, figure size in inches) for draw_partitions, or None when no report has partition results."""
    columns = []
    for label, r in reports:
        got = partition_panels(r)
        if got:
            columns.append((label, got[0], got[1]))
    if not columns:
        return None
    return columns, (3.4 * 2 * len(columns) + 1.0, 6.5)


def draw_partitions(reports, out_path, dpi):
    got = partition_figure(reports)
    if not got:
        return False
    columns, size = got
    vmax = max(row_max(rows) for _, panels, _ in columns for _, rows, _ in panels) / 1024.0
    fig, axes = plt.subplots(1, 2 * len(columns), figsize=size, squeeze=False, layout="constrained")
    im = None
    for c, (label, panels, sub) in enumerate(columns):
        for d, (title, rows, ylabels) in enumerate(panels):
            ax = axes[0][2 * c + d]
            kib = [[b / 1024.0 for b in row] for row in rows]
            ylabel = "window: resident blocks (linear ids)" if d == 0 else ""
            im = heat(ax, kib, vmax, "partition", ylabel, f"{label}\n{title}", ylabels)
            ax.set_xlabel("partition\n" + plain(sub) if d == 0 else "partition", fontsize=7)
    fig.colorbar(im, ax=axes, shrink=0.8, label="KiB served in the window (white: none)")
    fig.suptitle("DRAM partition usage per window of resident blocks\ncamping: hot cells, the rest of the row idle; "
                 "imbalance = max/mean, traffic-weighted" + title_suffix(reports), fontsize=9)
    save(fig, out_path, dpi)
    return True


def output_names(paths):
    """The <name> of every report file: its file name without the extension; while different files share it,
    the file name with its extension ("r.txt"), then parent directories put in front ("a_r", "a_r.txt", ...)."""
    cands = []
    for p in paths:
        *dirs, base = [c for c in os.path.abspath(p).split(os.sep) if c]
        stem = os.path.splitext(base)[0]
        seq = []
        for k in range(len(dirs) + 1):
            for last in (stem, base):
                name = "_".join(dirs[len(dirs) - k:] + [last])
                if name not in seq:
                    seq.append(name)
        cands.append(seq)
    step = [0] * len(paths)
    while True:
        names = [c[i] for c, i in zip(cands, step)]
        clash = [i for i, n in enumerate(names) if names.count(n) > 1]
        grow = [i for i in clash if step[i] + 1 < len(cands[i])]
        if not grow:
            break
        for i in grow:
            step[i] += 1
    if clash:  # only where "_" joins differently split paths alike (a_b/r.json, a/b_r.json)
        a, b = [paths[i] for i in clash if names[i] == names[clash[0]]][:2]
        raise InputError(f"{a} and {b} get no distinct figure names (both {names[clash[0]]}); rename one")
    return names


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def no_partitions(name):
    """Why a report has no partition picture: the run counted no partition traffic."""
    return (f"{name} has no 'partitions': its run counted no DRAM partition traffic (memsim counts it with "
            "--partitions or --plot partitions, and always on gtx280 and 8800gtx, whose mapping is public)")


def no_banks(name, report):
    """Why a report has no bank picture: no shared-memory site, or none with bank words."""
    sites = report.get("sites") if isinstance(report, dict) else None
    shared = [s for s in sites or [] if isinstance(s, dict) and s.get("space") == "shared"]
    if not shared:
        return f"{name} has no shared-memory site to draw banks of (kernel {report.get('kernel', '?')} uses none)"
    return f"{name} has no bank words ('first_block_bank_words') at its shared-memory sites"


def main(argv):
    try:
        if argv and argv[0] in COMMANDS:
            return run_command(argv[0], argv[1:])
        return run(argv)
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - a bug, not a user's mistake: one line, as memsim says it
        print(f"{PROG}: internal error: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        return 1


def run_command(command, argv):
    """memsim_plot.py validation RUN.json [...] --out DIR | banks|sectors|partitions FILE --out PICTURE."""
    ap = Parser(prog=f"memsim_plot.py {command}", description=COMMAND_HELP[command])
    if command == "validation":
        ap.add_argument("runs", nargs="+", help="memsim-validate run documents (validate/results/*.json)")
        ap.add_argument("--out", required=True, help="output directory, created if missing")
        ap.add_argument("--format", default="png", help="png or svg (default png)")
    else:
        ap.add_argument("inputs", nargs="+" if command == "sectors" else 1,
                        help="JSON from memsim (--plot KIND --plot-out FILE.json, or --format json); - reads "
                             "standard input")
        ap.add_argument("--out", required=True, help="the picture: .png or .svg by the extension")
    if command == "banks":
        ap.add_argument("--site", help="shared site by name or number (default: the one with the worst instruction)")
        ap.add_argument("--instruction", type=int, help="warp instruction of block 0 at the site, 0-based in "
                                                        "launch order (default: the most wavefronts)")
    ap.add_argument("--dpi", type=int, default=110, help=f"resolution, {MIN_DPI} to {MAX_DPI} (default 110)")
    args = ap.parse_args(argv)
    check_dpi(args.dpi)
    if command == "validation":
        if args.format not in ("png", "svg"):
            raise InputError(f"--format {args.format}: expected png or svg")
        if not args.out:
            raise InputError("--out is empty: give a directory")
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            raise InputError(f"--out {args.out} exists and is not a directory")
        docs = [(p, read_json(p, "memsim-validate writes its run document as NAME.json")) for p in args.runs]
        for path in plot_validation.draw_validation(docs, args.out, args.format, args.dpi):
            print(path)
        return 0
    check_out_file(args.out)
    docs = [(p, read_json(p, "memsim writes it with --plot KIND --plot-out FILE.json")) for p in args.inputs]
    name, doc = docs[0]
    if command == "banks":
        launches = launches_of(name, doc)
        if len(launches) > 1:
            check_pixels(args.out, plot_maps.bank_maps_size(len(launches)), args.dpi)
            fig = plot_maps.draw_bank_maps(launches, args.dpi, args.site, args.instruction)
        else:
            check_pixels(args.out, plot_maps.BANK_MAP_SIZE, args.dpi)
            fig = plot_maps.draw_bank_map(doc, name, args.out, args.dpi, args.site, args.instruction)
    elif command == "sectors":
        rows = plot_maps.sector_rows(docs)[0]
        check_pixels(args.out, plot_maps.sector_map_size(len(rows)), args.dpi)
        fig = plot_maps.draw_sector_map(docs, args.dpi)
    else:
        launches = launches_of(name, doc)
        for n, d in launches:
            if not isinstance(d, dict) or "sites" not in d:
                raise InputError(f"{n} is not a memsim JSON report (no 'sites')")
        columns = [(label, d) for label, (_, d) in zip(plot_maps.launch_labels(launches), launches)]
        if len(launches) == 1:
            columns = [(label_of(doc, name), doc)]
        try:
            got = partition_figure(columns)
            missing = [n for n, d in launches if not partition_panels(d)]
        except Malformed as e:
            raise InputError(f"{name} is not a well-formed memsim JSON report: {e}")
        if missing:
            raise InputError(no_partitions(missing[0]))
        check_pixels(args.out, got[1], args.dpi)
        draw_partitions(columns, args.out, args.dpi)
        print(args.out)
        return 0
    save(fig, args.out, args.dpi)
    print(args.out)
    return 0


def launches_of(name, doc):
    """[(name, report)]: the launches a document holds, several under "reports" (memsim --plot with a list in
    --kernel or --device), else the document itself."""
    if isinstance(doc, dict) and "reports" in doc and "sites" not in doc:
        reports = doc["reports"]
        if not isinstance(reports, list) or not reports or not all(isinstance(r, dict) for r in reports):
            raise InputError(f"{name}: 'reports' is not a list of memsim reports")
        return [(f"{name}: reports[{i}]", r) for i, r in enumerate(reports)]
    return [(name, doc)]


COMMAND_HELP = {
    "validation": "Validation charts from memsim-validate run documents: OUT/validation_scatter (predicted against "
                  "measured time), OUT/validation_counters (Nsight Compute counters' errors) and "
                  "OUT/bandwidth_<dtype>_<matrix> (measured and predicted bandwidth per kernel and block).",
    "banks": "Bank map of one shared-memory warp instruction (lanes x banks, each cell the word it reads) from "
             "memsim --plot banks --plot-out FILE.json; a document of several launches (a list in --kernel or "
             "--device) draws them side by side on one colour scale.",
    "sectors": "Sector map: sectors per request against the ideal for every global site, kernels x sites, from "
               "memsim --plot sectors --plot-out FILE.json or memsim --format json reports.",
    "partitions": "DRAM partition usage per window of resident blocks from a memsim report with partition results; "
                  "a document of several launches draws them side by side on one colour scale.",
}


def run(argv):
    ap = Parser(description="Bank and partition heatmaps from memsim JSON reports. Writes OUT/<name>_banks.png "
                            "and OUT/<name>_partitions.png per report, <name> being the file name without its "
                            "extension; where different files share it, the file name with its extension if that "
                            "differs, else the parent directories put in front (a/r.json b/r.json: a_r_*.png, "
                            "b_r_*.png). Input and option errors: one line on stderr, exit 2.")
    ap.add_argument("reports", nargs="+", help="memsim --format json output files")
    ap.add_argument("--out", default=".", help="output directory, created if missing (default: current)")
    ap.add_argument("--what", help="comma list of banks, partitions (default both: each report's that it has; "
                                   "named: every report must have them)")
    ap.add_argument("--compare", metavar="NAME", help="also draw the reports side by side as NAME_*.png (a plain "
                                                      "file name, not one of the reports' <name>s)")
    ap.add_argument("--dpi", type=int, default=110,
                    help=f"resolution of the PNGs, {MIN_DPI} to {MAX_DPI} (default 110)")
    args = ap.parse_args(argv)
    named = args.what is not None
    what = {w.strip() for w in (args.what if named else "banks,partitions").split(",") if w.strip()}
    if not what:
        raise InputError("--what is empty: give banks, partitions or banks,partitions")
    unknown = what - {"banks", "partitions"}
    if unknown:
        raise InputError(f"unknown --what entries: {', '.join(sorted(unknown))} (expected banks, partitions)")
    if not MIN_DPI <= args.dpi <= MAX_DPI:
        raise InputError(f"--dpi {args.dpi} is out of range ({MIN_DPI} to {MAX_DPI})")
    if args.compare is not None:
        name = args.compare
        if not name.strip() or name in (".", "..") or os.sep in name or (os.altsep and os.altsep in name):
            raise InputError(f"--compare {name!r} is not a plain file name (NAME_banks.png is written into --out)")
    if not args.out:
        raise InputError("--out is empty: give a directory")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(f"--out {args.out} exists and is not a directory")

    loaded = [(p, load(p)) for p in args.reports]
    # A kind asked for by name is a picture of every report; by default, of those that have it. Either way a
    # report that cannot give it is named with the reason, before anything is drawn.
    missing = []
    for p, r in loaded:
        if "partitions" in what and not partition_panels(r):
            missing.append(no_partitions(p))
        if "banks" in what and not bank_panels(r):
            missing.append(no_banks(p, r))
    if named and missing:
        raise InputError(missing[0])
    distinct = []
    for p, r in loaded:
        if not any(same_file(p, q) for q, _ in distinct):  # the same report given twice is drawn once
            distinct.append((p, r))
    names = output_names([p for p, _ in distinct])
    groups = [([(label_of(r, p), r)], name) for (p, r), name in zip(distinct, names)]
    if args.compare is not None:
        if args.compare in names:
            p = distinct[names.index(args.compare)][0]
            raise InputError(f"--compare {args.compare} would overwrite the figures of {p}; choose another NAME")
        groups.append(([(label_of(r, p), r) for p, r in loaded], args.compare))
    jobs = []  # everything is checked before the first figure is written
    for reports, stem in groups:
        for kind, figure, draw in (("banks", bank_figure, draw_banks),
                                   ("partitions", partition_figure, draw_partitions)):
            if kind not in what:
                continue
            got = figure(reports)
            if not got:
                continue
            w, h = (round(x * args.dpi) for x in got[1])
            path = os.path.join(args.out, f"{stem}_{kind}.png")
            if max(w, h) > MAX_PIXELS:
                raise InputError(f"{path} would be {w}x{h} pixels at --dpi {args.dpi}, more than matplotlib's "
                                 f"{MAX_PIXELS} a side; lower --dpi or draw fewer reports")
            jobs.append((draw, reports, path))
    if not jobs:
        raise InputError("nothing to draw: " + "; ".join(missing))
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create --out {args.out}: {e.strerror or e}")
    written = []
    for draw, reports, path in jobs:
        draw(reports, path, args.dpi)
        written.append(path)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
