#!/usr/bin/env python3
"""Per kernel, the error of one or more hold-out reports (memsim-calibrate --holdout-validate output) side by side:
mean absolute percentage error and, in brackets, the mean signed error (+: predicted slower than measured). Reads
each file's first report only (a file of several parts, as lab/calibration/results/h200_*holdout*.txt, is judged on its
part 1), then pooled over the direct kernels (copy, naive, naive_read, vec4, reg4x4) and the staged ones (through
shared memory). Only configurations of the judged set (docs/validation.md) are counted with --judged.

  holdout_by_kernel.py [--judged] REPORT.txt [REPORT.txt ...]

Standard library only. Exit 2 with one line on stderr for a file that cannot be read or holds no report rows.
"""
import re
import sys

ROW = re.compile(r"^\s+(\w+)\s+(\d+)x(\d+)\s+(f16|f32|f64)\s+(\d+x\d+)\s+(\d+x\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+"
                 r"[+-][\d.]+%\s+\S")
HEADER = "Hold-out validation of profile "
DIRECT = {"copy", "naive", "naive_read", "vec4", "reg4x4"}  # no shared memory; every other suite kernel stages


class Error(Exception):
    pass


def judged(width, height, dtype, block):
    if block not in ("32x8", "16x16", "8x32"):
        return False
    if dtype == "f32":
        return width * height >= 4096 * 4096
    return width == 8192 and height == 8192


def read_rows(path, only_judged):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise Error("%s: cannot be read (%s)" % (path, getattr(e, "strerror", None) or e)) from None
    rows, reports = [], 0
    for line in lines:
        if line.startswith(HEADER):
            reports += 1
            if reports > 1:
                break
        m = ROW.match(line)
        if m and reports == 1:
            kernel, w, h, dtype = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
            measured, predicted = float(m.group(8)), float(m.group(9))
            if measured > 0 and (not only_judged or judged(w, h, dtype, m.group(5))):
                rows.append((kernel, measured, predicted))
    if not rows:
        raise Error("%s: no rows of a memsim-calibrate --holdout-validate report" % path)
    return rows


def main(argv):
    only_judged = "--judged" in argv
    files = [a for a in argv if a != "--judged"]
    bad = [a for a in files if a.startswith("-")]
    if bad:
        raise Error("unknown option %s (usage: holdout_by_kernel.py [--judged] REPORT.txt [...])" % bad[0])
    if not files:
        raise Error("no report (usage: holdout_by_kernel.py [--judged] REPORT.txt [...])")
    data = [read_rows(f, only_judged) for f in files]
    kernels = []
    for kernel, _, _ in data[0]:
        if kernel not in kernels:
            kernels.append(kernel)
    print("%-12s" % "kernel" + "".join("  %22s" % f.rsplit("/", 1)[-1][:22] for f in files))
    for kernel in kernels:
        line = "%-12s" % kernel
        for rows in data:
            errs = [(p - m) / m * 100 for k, m, p in rows if k == kernel]
            if errs:
                line += "  %6.1f%% (%+6.1f%%) n=%-3d" % (sum(abs(e) for e in errs) / len(errs), sum(errs) / len(errs),
                                                       len(errs))
            else:
                line += "  %22s" % "-"
        print(line)
    # Pooled: the kernels that move data straight from global to global memory, and those that stage it through
    # shared memory (the ones the cost model over-predicts: docs/model.md, "How well it predicts").
    for label, members in (("direct", DIRECT), ("staged", None)):
        line = "%-12s" % label
        for rows in data:
            errs = [(p - m) / m * 100 for k, m, p in rows if (k in DIRECT) == (members is not None)]
            line += ("  %6.1f%% (%+6.1f%%) n=%-3d" % (sum(abs(e) for e in errs) / len(errs), sum(errs) / len(errs),
                                                     len(errs)) if errs else "  %22s" % "-")
        print(line)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Error as e:
        sys.stderr.write("holdout_by_kernel.py: %s\n" % e)
        sys.exit(2)
