#!/usr/bin/env python3
"""CTest for the one-command pictures (docs/plots.md): `memsim --plot banks|partitions|sectors --plot-out FILE` on
real replays, and `plots/memsim_plot.py validation RUN.json --out DIR` on a committed run document. Checks

  - every picture is a valid PNG (signature, IHDR) or SVG (well-formed XML, <svg width/height>) of the size its
    figure has (inches x dpi; SVG in points), and a PNG is a real picture, not an empty canvas;
  - what a person must see: the unpadded tile's column read is drawn in conflict colours (dark red) with no
    conflict-free green, the padded tile's in green with no red;
  - the bank map memsim writes as data (--plot-out FILE.json) agrees with the report: per instruction, its
    phases' words per bank add up to the report's first_block_bank_words row, and its wavefronts to the site's;
  - every input mistake (unknown kind, site or instruction, a kernel without shared memory, an unwritable or
    wrongly named output, a run document without predictions, no Python, no matplotlib) gives exactly one
    line on stderr and exit 2, and writes nothing.

  check_plot_commands.py MEMSIM PLOT_SCRIPT RUN_DOCUMENT OUT_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

import matplotlib.image as mpimg
import numpy as np

DPI = 110  # memsim --plot draws at the script's default resolution
# Figure sizes in inches (plots/plot_maps.py, plots/memsim_plot.py, plots/plot_validation.py).
BANKS, SECTORS, PARTITIONS = (13.0, 9.0), (12.0, 8.0), (7.8, 6.5)
SCATTER, COUNTERS = (10.0, 8.0), (16.0, 14.0)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def ok(msg):
    print("ok", msg)


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def svg_size(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return None
    if not root.tag.endswith("svg"):
        return None
    return tuple(float(root.get(k, "0").replace("pt", "")) for k in ("width", "height"))


def check_picture(path, inches, dpi=DPI):
    """A valid PNG or SVG of the figure's size; returns the PNG's pixels (or None)."""
    if not os.path.exists(path):
        fail(f"{path}: missing")
        return None
    if path.endswith(".svg"):
        got, want = svg_size(path), tuple(round(x * 72, 1) for x in inches)
        if got is None or tuple(round(x, 1) for x in got) != want:
            fail(f"{path}: want an SVG of {want} pt, got {got}")
        else:
            ok(f"{path}: SVG {got[0]:g}x{got[1]:g} pt")
        return None
    got, want = png_size(path), tuple(round(x * dpi) for x in inches)
    if got != want:
        fail(f"{path}: want a PNG of {want} px, got {got}")
        return None
    img = mpimg.imread(path)
    px = (img.reshape(-1, img.shape[2])[:, :3] * 255).astype(np.uint32)
    colours = len(np.unique(px[:, 0] << 16 | px[:, 1] << 8 | px[:, 2]))
    if colours < 50:
        fail(f"{path}: looks empty ({colours} colours)")
        return None
    ok(f"{path}: PNG {got[0]}x{got[1]} px, {colours} colours")
    return px


def near(px, rgb, tol=12):
    return int(np.sum(np.all(np.abs(px.astype(int) - np.array(rgb)) <= tol, axis=1)))


def check_pictures(memsim, script, run_doc, out):
    m = ["--matrix", "256x256", "--threads", "2"]
    jobs = [  # (args, file, size)
        (["-k", "coalesced", "--plot", "banks"], "coalesced_banks.png", BANKS),
        (["-k", "padded", "--plot", "banks"], "padded_banks.png", BANKS),
        (["-k", "padded", "-d", "f64", "--plot", "banks", "--plot-site", "ld tile"], "padded_f64_banks.svg", BANKS),
        (["-k", "naive", "--plot", "sectors"], "sectors.png", SECTORS),
        (["-k", "naive", "--plot", "sectors"], "sectors.svg", SECTORS),
        (["-k", "padded", "--device", "gtx280", "--plot", "partitions"], "partitions.png", PARTITIONS),
        (["-k", "diagonal", "--plot", "partitions"], "partitions.svg", PARTITIONS),
    ]
    pixels = {}
    for args, name, size in jobs:
        path = os.path.join(out, name)
        p = run([memsim] + m + args + ["--plot-out", path])
        if p.returncode != 0 or p.stdout.strip() != path:
            fail(f"memsim {' '.join(args)}: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
            continue
        pixels[name] = check_picture(path, size)
    # The conflict and its absence, by colour: dark red (conflict) against green (#7fc97f, one word a bank).
    green, red = (0x7F, 0xC9, 0x7F), (0x80, 0x00, 0x26)
    c, p = pixels.get("coalesced_banks.png"), pixels.get("padded_banks.png")
    if c is not None and p is not None:
        cg, cr, pg, pr = near(c, green), near(c, red, 30), near(p, green), near(p, red, 30)
        if not (cr > 5000 and cg < 50 and pg > 5000 and pr < 50):  # < 50: antialiased edges of other colours
            fail(f"bank maps: want coalesced red without green and padded green without red, got coalesced "
                 f"{cr} red / {cg} green px, padded {pr} red / {pg} green px")
        else:
            ok(f"bank maps: coalesced {cr} px conflict red, padded {pg} px conflict-free green")

    # The bank map as data, against the report's own counts.
    data = os.path.join(out, "coalesced_banks.json")
    p = run([memsim] + m + ["-k", "coalesced", "--plot", "banks", "--plot-out", data])
    if p.returncode != 0:
        fail(f"memsim --plot-out {data}: exit {p.returncode}: {p.stderr!r}")
    else:
        doc = json.load(open(data))
        sites = {s["site"]: s for s in doc["sites"]}
        bad = []
        for s in doc["bank_map"]["sites"]:
            report = sites[s["site"]]
            rows = report["first_block_bank_words"]
            if len(rows) != len(s["instructions"]):
                bad.append(f"site {s['name']}: {len(s['instructions'])} instructions, report {len(rows)} rows")
                continue
            for ins, row in zip(s["instructions"], rows):
                words = [sum(ph["bank_words"][b] for ph in ins["phases"]) for b in range(len(row))]
                if words != row or ins["wavefronts"] != sum(ph["wavefronts"] for ph in ins["phases"]):
                    bad.append(f"site {s['name']} warp {ins['warp']}: {words} against {row}")
            # Every block of the unpadded tile's column read takes the same 32 wavefronts an instruction.
            per = report["wavefronts"] / report["instructions"]
            worst = max(i["wavefronts"] for i in s["instructions"])
            if s["name"] == "ld tile" and worst != per:
                bad.append(f"site {s['name']}: worst {worst} wavefronts, the report {per} an instruction")
        if bad:
            fail("bank map data against the report: " + "; ".join(bad[:3]))
        else:
            ok("bank map data: phases' words per bank = first_block_bank_words, wavefronts = the report's")
        # The script draws it the same from the saved file.
        svg = os.path.join(out, "from_data.svg")
        p = run([sys.executable, script, "banks", data, "--out", svg, "--instruction", "3"])
        if p.returncode != 0:
            fail(f"memsim_plot.py banks {data}: exit {p.returncode}: {p.stderr!r}")
        else:
            check_picture(svg, BANKS)

    # The validation charts from a committed run document, at a low resolution to keep the test quick.
    vdir = os.path.join(out, "validation")
    shutil.rmtree(vdir, ignore_errors=True)
    p = run([sys.executable, script, "validation", run_doc, "--out", vdir, "--dpi", "40"])
    if p.returncode != 0:
        fail(f"memsim_plot.py validation {run_doc}: exit {p.returncode}: {p.stderr!r}")
        return
    written = p.stdout.split()
    doc = json.load(open(run_doc))
    blocks = {}
    for r in doc["records"]:
        c = r["config"]
        key = (c["dtype"], f"{c['matrix']['width']}x{c['matrix']['height']}")
        blocks.setdefault(key, set()).add((c["block"]["x"], c["block"]["y"]))
    want = {os.path.join(vdir, "validation_scatter.png"): SCATTER,
            os.path.join(vdir, "validation_counters.png"): COUNTERS}
    for (dtype, matrix), bl in blocks.items():
        want[os.path.join(vdir, f"bandwidth_{dtype}_{matrix}.png")] = (5.5 * len(bl) + 2.5, 5.5)
    if sorted(written) != sorted(want):
        fail(f"validation: want {sorted(want)}, wrote {written}")
    for path, size in want.items():
        check_picture(path, size, dpi=40)


def check_errors(memsim, script, run_doc, out):
    d = os.path.join(out, "errors")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    o = os.path.join(d, "never.png")  # no failing run may write it
    m = ["--matrix", "64x64", "--threads", "1"]
    no_pred = os.path.join(d, "no_predictions.json")
    doc = json.load(open(run_doc))
    for r in doc["records"]:
        r["predicted"] = {k: None for k in r["predicted"]}
    json.dump(doc, open(no_pred, "w"))
    report = os.path.join(d, "report.json")
    with open(report, "w") as f:
        subprocess.run([memsim] + m + ["-k", "padded", "-f", "json"], stdout=f, check=True)
    no_mpl = os.path.join(d, "python_without_matplotlib")
    with open(no_mpl, "w") as f:  # the system Python without its site packages, where matplotlib lives
        f.write(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    os.chmod(no_mpl, 0o755)
    env = dict(os.environ)
    cases = [  # (what, command, environment overrides, fragment of the message, prefix)
        ("unknown plot kind", [memsim, "--plot", "bank", "--plot-out", o], {}, "unknown --plot 'bank'", "memsim"),
        ("no --plot-out", [memsim, "--plot", "banks"], {}, "--plot-out", "memsim"),
        ("--plot-out alone", [memsim, "--plot-out", o], {}, "goes with --plot", "memsim"),
        ("site for sectors", [memsim, "--plot", "sectors", "--plot-out", o, "--plot-site", "0"], {},
         "goes with --plot banks", "memsim"),
        ("unknown site", [memsim, "-k", "coalesced", "--plot", "banks", "--plot-site", "ld nope", "--plot-out", o],
         {}, "unknown --plot-site 'ld nope'", "memsim"),
        ("a global site", [memsim, "-k", "coalesced", "--plot", "banks", "--plot-site", "0", "--plot-out", o], {},
         "its shared sites are", "memsim"),
        ("no shared memory", [memsim, "-k", "naive", "--plot", "banks", "--plot-out", o], {},
         "no shared-memory access", "memsim"),
        ("instruction out of range", [memsim] + m + ["-k", "padded", "--plot", "banks", "--plot-instruction", "999",
                                                     "--plot-out", o], {}, "--plot-instruction 999 is out of range",
         "memsim"),
        ("negative instruction", [memsim, "--plot", "banks", "--plot-instruction", "-1", "--plot-out", o], {},
         "--plot-instruction", "memsim"),
        ("no such directory", [memsim, "--plot", "banks", "--plot-out", os.path.join(d, "no", "x.png")], {},
         "cannot write --plot-out", "memsim"),
        ("a file for a directory", [memsim, "--plot", "banks", "--plot-out", os.path.join(report, "x.png")], {},
         "cannot write --plot-out", "memsim"),
        ("unknown format", [memsim, "--plot", "banks", "--plot-out", os.path.join(d, "x.gif")], {}, ".png, .svg",
         "memsim"),
        ("no Python", [memsim] + m + ["--plot", "banks", "--plot-out", o], {"MEMSIM_PYTHON": "/nonexistent/python3"},
         "install python3-matplotlib", "memsim"),
        ("no matplotlib", [memsim] + m + ["--plot", "banks", "--plot-out", o], {"MEMSIM_PYTHON": no_mpl},
         "install python3-matplotlib", "memsim"),
        ("run without predictions", [sys.executable, script, "validation", no_pred, "--out", d], {},
         "no predictions", "memsim_plot"),
        ("not a run document", [sys.executable, script, "validation", report, "--out", d], {},
         "not a memsim-validate run document", "memsim_plot"),
        ("validation --format", [sys.executable, script, "validation", run_doc, "--out", d, "--format", "jpg"], {},
         "--format jpg", "memsim_plot"),
        ("report without a bank map", [sys.executable, script, "banks", report, "--out", o], {}, "no 'bank_map'",
         "memsim_plot"),
        ("report without partitions", [sys.executable, script, "partitions", report, "--out", o], {},
         "no 'partitions'", "memsim_plot"),
        ("script: unwritable --out", [sys.executable, script, "sectors", report, "--out",
                                      os.path.join(d, "no", "x.png")], {}, "cannot write --out", "memsim_plot"),
        ("script: unknown extension", [sys.executable, script, "sectors", report, "--out", os.path.join(d, "x.pdf")],
         {}, ".png or .svg", "memsim_plot"),
    ]
    for what, cmd, extra, expect, prefix in cases:
        p = run(cmd, {**env, **extra})
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith(prefix + ": ") or expect not in lines[0]:
            fail(f"{what}: want exit 2 and one line '{prefix}: ...{expect}...', got exit {p.returncode}: "
                 f"{p.stderr!r}")
        else:
            ok(f"{what}: {lines[0]}")
    if os.path.exists(o):
        fail(f"{o}: written by a run that failed")


def main(memsim, script, run_doc, out):
    os.makedirs(out, exist_ok=True)
    check_pictures(memsim, script, run_doc, out)
    check_errors(memsim, script, run_doc, out)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
