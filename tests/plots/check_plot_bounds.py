#!/usr/bin/env python3
"""CTest for issue 39's plotting cases: outputs appear whole or not at all, and a document is bounded before it is
drawn.

  - 24 memsim processes writing one --plot-out FILE.json at once, and 6 plot scripts writing one SVG at once:
    every process exits 0, the file parses whole (JSON; well-formed XML with an <svg> root), and no temporary
    file is left beside it (they were written in place: 2 corrupt files in 4 trials of 50);
  - a report whose bank rows hold 100,000 banks (a GPU has at most 64) is refused in seconds with one line and
    exit 2 (it drew for more than 120 s);
  - a FIFO or /dev/zero as the input document is refused, not read without end.

  check_plot_bounds.py MEMSIM PLOT_SCRIPT OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

memsim, script, out_dir = sys.argv[1:4]
failures = []


def check(cond, msg):
    print("ok" if cond else "FAIL", msg)
    if not cond:
        failures.append(msg)


shutil.rmtree(out_dir, ignore_errors=True)
os.makedirs(out_dir)
env = dict(os.environ, MEMSIM_PLOT_SCRIPT=script)

# Parallel writers of one JSON name.
target = os.path.join(out_dir, "same.json")
cmd = [memsim, "--plot", "banks", "--kernel", "coalesced", "--matrix", "256x256", "--plot-out", target]
procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env) for _ in range(24)]
codes = [p.wait() for p in procs]
check(codes == [0] * len(procs), f"24 parallel memsim --plot-out same.json all exit 0 (got {sorted(set(codes))})")
try:
    with open(target, encoding="utf-8") as f:
        doc = json.load(f)
    check(isinstance(doc, dict) and "bank_map" in doc, "same.json is one whole bank-map document")
except (OSError, ValueError) as e:
    check(False, f"same.json parses as JSON ({e})")
check(sorted(os.listdir(out_dir)) == ["same.json"], f"no temporary file is left ({sorted(os.listdir(out_dir))})")

# Parallel plot scripts writing one SVG.
svg = os.path.join(out_dir, "same.svg")
cmd = [sys.executable, script, "banks", target, "--out", svg, "--dpi", "20"]
procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env) for _ in range(6)]
codes = [p.wait() for p in procs]
check(codes == [0] * len(procs), f"6 parallel plot scripts --out same.svg all exit 0 (got {sorted(set(codes))})")
try:
    root = ET.parse(svg).getroot()
    check(root.tag.endswith("svg"), "same.svg is one whole SVG")
except (OSError, ET.ParseError) as e:
    check(False, f"same.svg is well-formed XML ({e})")
check(sorted(os.listdir(out_dir)) == ["same.json", "same.svg"], f"no temporary file is left ({sorted(os.listdir(out_dir))})")

# A report of 100,000 banks a row is refused before drawing.
report = subprocess.run([memsim, "--kernel", "coalesced", "--matrix", "64x64", "--format", "json"],
                        capture_output=True, text=True, check=True).stdout
doc = json.loads(report)
widened = 0
for site in doc["sites"]:
    if site.get("first_block_bank_words"):
        site["first_block_bank_words"] = [[1] * 100000 for _ in site["first_block_bank_words"]]
        widened += 1
check(widened > 0, "the coalesced report has bank rows to widen")
wide = os.path.join(out_dir, "wide.json")
with open(wide, "w", encoding="utf-8") as f:
    json.dump(doc, f)
start = time.monotonic()
r = subprocess.run([sys.executable, script, wide, "--out", os.path.join(out_dir, "wide_out")], capture_output=True,
                   text=True, timeout=60)
took = time.monotonic() - start
lines = r.stderr.strip().splitlines()
check(r.returncode == 2, f"100,000 banks a row: exit 2 (got {r.returncode})")
check(len(lines) == 1 and "100000 banks a row" in lines[0] and "at most 64" in lines[0],
      f"one line naming the banks and the bound ({r.stderr.strip()[:200]!r})")
check(took < 30, f"refused in {took:.1f} s (before drawing)")
check(not os.path.exists(os.path.join(out_dir, "wide_out", "wide_banks.png")), "no picture written")

# A document that is no regular file (a FIFO, /dev/zero) is refused, not read without end.
fifo = os.path.join(out_dir, "pipe.json")
os.mkfifo(fifo)
for src in (fifo, "/dev/zero"):
    r = subprocess.run([sys.executable, script, "partitions", src, "--out", os.path.join(out_dir, "p.png")],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "is not a regular file" in r.stderr and r.stderr.count("\n") == 1,
          f"{src}: exit 2, one line ({r.returncode}, {r.stderr.strip()[:200]!r})")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
