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
# The sector map: 2.6 in plus half an inch a kernel drawn, at most 8 (a kernel asked: 3.1 in).
BANKS, PARTITIONS = (13.0, 9.0), (7.8, 6.5)
SECTORS_ONE, SECTORS_TWO, SECTORS_SUITE = (12.0, 3.1), (12.0, 3.6), (12.0, 8.0)
# Several launches side by side: a column of 6.5 in per bank map, two panels of 3.4 in per partition picture.
BANKS_TWO, PARTITIONS_TWO = (14.0, 9.0), (14.6, 6.5)
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
        (["-k", "naive", "--plot", "sectors"], "sectors.png", SECTORS_ONE),
        (["-k", "naive", "--plot", "sectors"], "sectors.svg", SECTORS_ONE),
        (["-k", "padded", "--device", "h100,gtx280", "--plot", "sectors"], "sectors_devices.png", SECTORS_TWO),
        (["-k", "all", "--plot", "sectors"], "sectors_suite.png", SECTORS_SUITE),
        (["-k", "coalesced,padded", "--plot", "banks"], "banks_two.png", BANKS_TWO),
        # 2048x2048: the whitepaper's size, where padded camps (at 256x256 one window holds every block).
        (["-k", "padded,diagonal", "--device", "gtx280", "--matrix", "2048x2048", "--plot", "partitions"],
         "partitions_two.png", PARTITIONS_TWO),
        (["-k", "padded", "--device", "gtx280", "--plot", "partitions"], "partitions.png", PARTITIONS),
        (["-k", "diagonal", "--plot", "partitions"], "partitions.svg", PARTITIONS),
    ]
    pixels = {}
    for args, name, size in jobs:
        path = os.path.join(out, name)
        p = run([memsim] + (m if "--matrix" not in args else m[2:]) + args + ["--plot-out", path])
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

    # One colour scale for both: padded's camped stores (all of a window's bytes on one partition) reach the top
    # (viridis' yellow) and diagonal's even spread, an eighth of them, stays dark; with a scale each, diagonal's
    # busiest cells would be yellow too. The colour bar sits right of the last panel.
    px = pixels.get("partitions_two.png")
    if px is not None:
        w, h = (round(x * DPI) for x in PARTITIONS_TWO)
        img = px.reshape(h, w, 3)
        yellow = (0xFD, 0xE7, 0x25)
        left, right = near(img[:, int(0.05 * w):int(0.45 * w)].reshape(-1, 3), yellow, 40), \
            near(img[:, int(0.50 * w):int(0.86 * w)].reshape(-1, 3), yellow, 40)
        if left < 1000 or right > 50:
            fail(f"partitions_two.png: want padded's camping yellow and diagonal dark on one scale, got {left} "
                 f"yellow px left, {right} right")
        else:
            ok(f"partitions_two.png: one scale: padded {left} yellow px, diagonal {right}")
    data = os.path.join(out, "two.json")
    p = run([memsim] + m + ["-k", "padded,diagonal", "--device", "gtx280", "--plot", "partitions", "--plot-out", data])
    if p.returncode != 0:
        fail(f"memsim --plot partitions of two kernels as data: exit {p.returncode}: {p.stderr!r}")
    else:
        doc = json.load(open(data))
        got = [(r["kernel"], r["plot"]["device_profile"]) for r in doc.get("reports", [])]
        if got != [("padded", "gtx280"), ("diagonal", "gtx280")] or not all("partitions" in r for r in doc["reports"]):
            fail(f"two kernels' partition data: want padded and diagonal on gtx280 with partitions, got {got}")
        else:
            ok("two kernels' partition data: one report each, with partitions")

    # The sector map is of the kernels asked: one row for naive, the suite's fourteen for all.
    for args, want in ((["-k", "naive"], ["naive"]), (["-k", "naive,padded"], ["naive", "padded"])):
        data = os.path.join(out, "sectors.json")
        p = run([memsim] + m + args + ["--plot", "sectors", "--plot-out", data])
        got = [r["kernel"] for r in json.load(open(data))["reports"]] if p.returncode == 0 else p.stderr
        if got != want:
            fail(f"sector map of {args}: want rows {want}, got {got}")
        else:
            ok(f"sector map of {' '.join(args)}: rows {got}")

    # The bank map's default site: the most conflicts an instruction takes, and among conflict-free sites the
    # one whose lanes lie furthest apart, the tile's column read (padded: 'ld tile', where coalesced conflicts).
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    import plot_maps  # noqa: E402
    for kernel in ("coalesced", "padded", "swizzle"):
        data = os.path.join(out, f"{kernel}_banks.json")
        p = run([memsim] + m + ["-k", kernel, "--plot", "banks", "--plot-out", data])
        site = plot_maps.pick_site(json.load(open(data))["bank_map"], None)[0]["name"] if p.returncode == 0 else p.stderr
        if site != "ld tile":
            fail(f"bank map of {kernel}: want the default site 'ld tile', got {site!r}")
        else:
            ok(f"bank map of {kernel}: default site 'ld tile'")

    # Python with matplotlib is found: a python3 first on PATH that lacks it is passed over for /usr/bin/python3.
    stub_dir = os.path.join(out, "stub_bin")
    os.makedirs(stub_dir, exist_ok=True)
    stub = os.path.join(stub_dir, "python3")
    with open(stub, "w") as f:
        f.write("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")
    os.chmod(stub, 0o755)
    env = {k: v for k, v in os.environ.items() if k != "MEMSIM_PYTHON"}
    env["PATH"] = stub_dir + os.pathsep + env.get("PATH", "")
    path = os.path.join(out, "found_python.png")
    p = run([memsim] + m + ["-k", "padded", "--plot", "banks", "--plot-out", path], env)
    if p.returncode != 0:
        fail(f"a python3 on PATH without matplotlib: want /usr/bin/python3 used, got exit {p.returncode}: "
             f"{p.stderr!r}")
    else:
        ok("a python3 on PATH without matplotlib: /usr/bin/python3 drew it")

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
         f"{no_mpl} -m pip install matplotlib", "memsim"),
        ("several kernels and devices", [memsim] + m + ["-k", "padded,diagonal", "--device", "h100,gtx280", "--plot",
                                                        "partitions", "--plot-out", o], {}, "not both", "memsim"),
        ("a kernel without shared memory among several", [memsim] + m + ["-k", "padded,naive", "--plot", "banks",
                                                                         "--plot-out", o], {},
         "kernel naive has no shared-memory access", "memsim"),
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
