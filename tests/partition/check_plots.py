#!/usr/bin/env python3
"""CTest for plots/memsim_plot.py: renders the committed fixture (a small memsim report with partition results:
tests/partition/plot_fixture.json: coalesced 256x256 f32, block 32x8, GT200 partitions, 8 resident blocks, a
window every 2 retirements: the settings of `memsim -k coalesced -m 256x256 --device gtx280 --resident-blocks 8
--window-step 2 -f json`) and checks that
every expected PNG exists and is a real picture, not an empty canvas. Then the input checks: bad options,
missing, non-JSON and malformed reports (made from the fixture under OUT_DIR/inputs) must each give one line on
stderr prefixed "memsim_plot:" and exit code 2, writing nothing; reports sharing a file name (a/r.json,
b/r.json) must each get their own figures. Those run in-process (main(argv)), a few as processes too, to keep
the test quick.

  check_plots.py PLOT_SCRIPT FIXTURE OUT_DIR
"""
import contextlib
import copy
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import traceback

import matplotlib.image as mpimg
import numpy as np


def main(script, fixture, out):
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith(".png"):
            os.remove(os.path.join(out, name))
    # One report drawn alone: the side-by-side figures run the same drawing code with more columns. A low
    # resolution keeps the test quick.
    subprocess.run([sys.executable, script, fixture, "--out", out, "--dpi", "60"], check=True)
    stem = os.path.splitext(os.path.basename(fixture))[0]
    failures = []
    for base in (stem,):
        for kind in ("banks", "partitions"):
            path = os.path.join(out, f"{base}_{kind}.png")
            if not os.path.exists(path):
                failures.append(f"{path}: missing")
                continue
            size = os.path.getsize(path)
            img = mpimg.imread(path)
            h, w = img.shape[:2]
            # A heatmap figure has many colours (colormap, text, axes); a blank or failed figure has a handful.
            px = (img.reshape(-1, img.shape[2]) * 255).astype(np.uint32)
            colours = len(np.unique(px[:, 0] << 16 | px[:, 1] << 8 | px[:, 2]))
            if size < 10_000 or h < 250 or w < 250 or colours < 50:
                failures.append(f"{path}: looks empty ({size} bytes, {w}x{h} px, {colours} colours)")
            else:
                print(f"ok {path}: {size} bytes, {w}x{h} px, {colours} colours")
    failures += check_inputs(script, fixture, out)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


def write_inputs(fixture, d):
    """Bad and tricky reports made from the fixture: {name: path}."""
    with open(fixture) as f:
        good = json.load(f)
    shared = next(i for i, s in enumerate(good["sites"]) if s.get("first_block_bank_words"))

    def edit(fn):
        r = copy.deepcopy(good)
        fn(r)
        return r

    reports = {
        "not_report": {"kernel": "padded"},
        "array": [1, 2],
        "sites_text": edit(lambda r: r.__setitem__("sites", "oops")),
        "site_number": edit(lambda r: r["sites"].__setitem__(shared, 7)),
        "ragged_banks": edit(lambda r: r["sites"][shared]["first_block_bank_words"][1].pop()),
        "text_bank_cell": edit(lambda r: r["sites"][shared]["first_block_bank_words"][0].__setitem__(0, "x")),
        "no_site_name": edit(lambda r: r["sites"][shared].pop("name")),
        "partitions_list": edit(lambda r: r.__setitem__("partitions", [1])),
        "no_windows": edit(lambda r: r["partitions"].pop("windows")),
        "short_windows": edit(lambda r: r["partitions"]["windows"]["st_bytes"].pop()),
        "imbalance_null": edit(lambda r: r["partitions"]["imbalance"].__setitem__("ld", None)),
        "negative_bytes": edit(lambda r: r["partitions"]["windows"]["ld_bytes"][0].__setitem__(0, -1)),
        # valid, but drawn as text, not as mathematics
        "nan_bytes": edit(lambda r: r["partitions"]["windows"]["ld_bytes"][0].__setitem__(0, float("nan"))),
        "dollars": edit(lambda r: (r.__setitem__("kernel", "$\\frac$"),
                                   r["sites"][shared].__setitem__("expr", "$\\x{$"))),
        # no partition results (a run on a device whose mapping is assumed, without --partitions); no shared
        # memory either (naive)
        "no_partitions": edit(lambda r: r.pop("partitions")),
        "naive_h100": edit(lambda r: (r.__setitem__("kernel", "naive"), r.pop("partitions"),
                                      r.__setitem__("sites", [s for s in r["sites"] if s["space"] == "global"]))),
        # the same file name in two folders; b's is another kernel without partition results
        os.path.join("a", "r"): good,
        os.path.join("b", "r"): edit(lambda r: (r.__setitem__("kernel", "padded"), r.pop("partitions"))),
    }
    paths = {}
    for name, r in reports.items():
        paths[name] = os.path.join(d, name + ".json")
        os.makedirs(os.path.dirname(paths[name]), exist_ok=True)
        with open(paths[name], "w") as f:
            json.dump(r, f)
    raw = {"table.txt": b"memsim: coalesced  matrix 256x256 f32  block 32x8\n", "empty.json": b"",
           "binary.json": b"\xff\xfe\x00\x01", "deep.json": b"[" * 100000 + b"]" * 100000}
    for name, data in raw.items():
        paths[name] = os.path.join(d, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    paths["missing"] = os.path.join(d, "missing.json")
    paths["folder"] = d
    paths["regular_file"] = paths["table.txt"]
    return paths


def run_main(mod, argv):
    """(exit code, stdout, stderr) of main(argv) in this process; an exception is reported as exit code None."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = mod.main(argv)
        except SystemExit as e:
            rc = e.code
        except Exception:  # noqa: BLE001 - a traceback is exactly what this test must catch
            rc, err = None, io.StringIO(traceback.format_exc())
    return rc, out.getvalue(), err.getvalue()


def shown(args):
    return " ".join(repr(a) if not a.strip() else os.path.basename(a) or a for a in args)


def check_error(what, rc, err, expect, failures):
    lines = err.strip().splitlines()
    if rc != 2 or len(lines) != 1 or not lines[0].startswith("memsim_plot: ") or expect not in lines[0]:
        failures.append(f"{what}: want exit 2 and one line 'memsim_plot: ...{expect}...', got exit {rc}: {err!r}")
    else:
        print(f"ok {what}: {lines[0]}")


def check_inputs(script, fixture, out):
    failures = []
    d = os.path.join(out, "inputs")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    f = write_inputs(fixture, d)
    spec = importlib.util.spec_from_file_location("memsim_plot", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    o = os.path.join(d, "out")  # must stay unwritten by every failing run
    many = [fixture] * 12
    cases = [  # (args, a fragment of the message)
        ([f["missing"], "--out", o], "cannot read"),
        ([f["folder"], "--out", o], "cannot read"),
        ([f["table.txt"], "--out", o], "is not JSON"),
        ([f["empty.json"], "--out", o], "is not JSON"),
        ([f["binary.json"], "--out", o], "is not JSON"),
        ([f["deep.json"], "--out", o], "too deeply"),
        ([f["not_report"], "--out", o], "not a memsim JSON report"),
        ([f["array"], "--out", o], "not a memsim JSON report"),
        ([f["sites_text"], "--out", o], "'sites' is not a list"),
        ([f["site_number"], "--out", o], "is not an object"),
        ([f["ragged_banks"], "--out", o], "first_block_bank_words[1] has"),
        ([f["text_bank_cell"], "--out", o], "first_block_bank_words[0][0]"),
        ([f["no_site_name"], "--out", o], "has no 'name'"),
        ([f["partitions_list"], "--out", o], "'partitions' is not an object"),
        ([f["no_windows"], "--out", o], "has no 'windows'"),
        ([f["short_windows"], "--out", o], "st_bytes has"),
        ([f["imbalance_null"], "--out", o], "imbalance.ld"),
        ([f["negative_bytes"], "--out", o], "ld_bytes[0][0]"),
        ([f["nan_bytes"], "--out", o], "ld_bytes[0][0]"),
        ([fixture, f["missing"], "--out", o], "missing.json"),  # nothing drawn before every input is read
        ([fixture, "--dpi", "0", "--out", o], "--dpi 0"),
        ([fixture, "--dpi", "-5", "--out", o], "--dpi -5"),
        ([fixture, "--dpi", "100000", "--out", o], "--dpi 100000"),
        ([fixture, "--dpi", "x", "--out", o], "--dpi"),
        ([fixture, "--out", f["regular_file"]], "not a directory"),
        ([fixture, "--out", os.path.join(f["regular_file"], "sub")], "cannot create --out"),
        ([fixture, "--out", ""], "--out"),
        ([fixture, "--compare", "x/y", "--out", o], "--compare"),
        ([fixture, "--compare", "", "--out", o], "--compare"),
        ([fixture, "--compare", "..", "--out", o], "--compare"),
        ([fixture, "--compare", "plot_fixture", "--out", o], "would overwrite"),
        ([fixture, "--what", "", "--out", o], "--what"),
        ([fixture, "--what", " , ", "--out", o], "--what"),
        ([fixture, "--what", "bank", "--out", o], "unknown --what"),
        ([fixture, "--bogus", "--out", o], "unrecognized"),
        # A picture the report cannot give: named with its cause, not "nothing to draw" with exit 1.
        ([f["no_partitions"], "--what", "partitions", "--out", o], "counted no DRAM partition traffic"),
        ([f["naive_h100"], "--what", "banks", "--out", o], "no shared-memory site"),
        ([f["naive_h100"], "--out", o], "nothing to draw: "),
        ([fixture, f["no_partitions"], "--what", "partitions", "--out", o], "no_partitions.json has no 'partitions'"),
        (["partitions", f["no_partitions"], "--out", os.path.join(d, "never.png")],
         "counted no DRAM partition traffic"),
        ([], "required"),
        (many + ["--compare", "all", "--dpi", "1200", "--out", o], "pixels"),
    ]
    for args, expect in cases:
        rc, _, err = run_main(mod, args)
        check_error(f"memsim_plot {shown(args)}", rc, err, expect, failures)
    for never in (o, os.path.join(d, "never.png")):
        if os.path.exists(never):
            failures.append(f"{never}: written by a run that failed")
    # The same through a real process: exit status and stderr, no traceback.
    for args, expect in ((["--compare", "", fixture, "--out", o], "--compare"),
                         ([f["missing"], "--out", o], "cannot read")):
        p = subprocess.run([sys.executable, script] + args, capture_output=True, text=True)
        check_error(f"process memsim_plot {shown(args)}", p.returncode, p.stderr, expect, failures)

    # A bug is one line too, "internal error", exit 1 (memsim's convention), never a traceback.
    real_run = mod.run
    mod.run = lambda argv: 1 / 0
    rc, _, err = run_main(mod, [fixture, "--out", o])
    mod.run = real_run
    lines = err.strip().splitlines()
    if rc != 1 or len(lines) != 1 or not lines[0].startswith("memsim_plot: internal error: ZeroDivisionError"):
        failures.append(f"a bug: want exit 1 and one 'internal error' line, got exit {rc}: {err!r}")
    else:
        print(f"ok a bug: {lines[0]}")

    # Reports sharing a file name: both drawn, under their folders' names; the same file twice: drawn once.
    c = os.path.join(d, "collide")
    a, b = f[os.path.join("a", "r")], f[os.path.join("b", "r")]
    twice = os.path.join(d, "a", "..", "a", "r.json")
    rc, stdout, err = run_main(mod, [a, b, twice, "--out", c, "--dpi", "20"])
    want = sorted(["a_r_banks.png", "a_r_partitions.png", "b_r_banks.png"])
    got = sorted(os.listdir(c)) if os.path.isdir(c) else []
    if rc != 0 or got != want or len(stdout.split()) != 3:
        failures.append(f"colliding stems: want exit 0 and {want}, got exit {rc}, {got}, {stdout!r} {err!r}")
    else:
        print(f"ok colliding stems a/r.json b/r.json: {', '.join(got)}")
    rc, _, err = run_main(mod, [a, b, "--compare", "a_r", "--out", c, "--dpi", "20"])
    check_error("memsim_plot a/r.json b/r.json --compare a_r", rc, err, "would overwrite", failures)

    # '$' in a kernel name or expression is text, not mathematics for matplotlib to parse.
    rc, stdout, err = run_main(mod, [f["dollars"], "--out", os.path.join(d, "dollars"), "--dpi", "20"])
    if rc != 0 or len(stdout.split()) != 2:
        failures.append(f"'$' in names: want exit 0 and two figures, got exit {rc}: {stdout!r} {err!r}")
    else:
        print("ok '$' in names drawn as text")
    return failures


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
