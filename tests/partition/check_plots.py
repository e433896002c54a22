#!/usr/bin/env python3
"""CTest for plots/memsim_plot.py: renders the committed fixture (a small memsim report with partition results:
tests/partition/plot_fixture.json: coalesced 256x256 f32, block 32x8, GT200 partitions, 8 resident blocks, a
window every 2 retirements: the settings of `memsim -k coalesced -m 256x256 --device gtx280 --resident-blocks 8
--window-step 2 -f json`) and checks that
every expected PNG exists and is a real picture, not an empty canvas.

  check_plots.py PLOT_SCRIPT FIXTURE OUT_DIR
"""
import os
import subprocess
import sys

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
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
