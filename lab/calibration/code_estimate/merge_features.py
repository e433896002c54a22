#!/usr/bin/env python3
"""Gives the committed counts new replay features without compiling again: takes each row's "features" and
"estimate" from a memsim-code-counts run on a machine without the toolkit (no nvcc, an empty MEMSIM_CACHE_DIR),
and keeps its "compiled" paths, registers, basis and source. Rows are matched by (set, kernel, dtype, block,
tile, smem_row, matrix), in the same order: the run must be given the lists the counts were made from (the
training list as it was then: git show 8012fe4^:lab/calibration/code_estimate/training_configs.txt, run where
it sits at that path). Every feature the committed row has must come out the same.

    merge_features.py COMMITTED.json.gz NEW.json OUT.json      then gzip -9nf OUT.json
"""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "validate"))
from record_lines import record_lines  # noqa: E402  (validate/record_lines.py: the committed runs' layout)

FIELDS = ("set", "kernel", "dtype", "block", "tile", "smem_row", "matrix")


def key(r):
    return tuple(json.dumps(r.get(f)) for f in FIELDS)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    old_path, new_path, out_path = sys.argv[1:4]
    with (gzip.open(old_path, "rt") if old_path.endswith(".gz") else open(old_path)) as f:
        old = json.load(f)
    with open(new_path) as f:
        new = json.load(f)
    if len(old) != len(new):
        print("merge_features.py: %d committed rows, %d new" % (len(old), len(new)), file=sys.stderr)
        return 1
    out, added = [], set()
    for i, (o, n) in enumerate(zip(old, new)):
        if "refused" in o:
            if o != n:
                print("merge_features.py: row %d: %s, now %s" % (i, o, n), file=sys.stderr)
                return 1
            out.append(o)
            continue
        if key(o) != key(n):
            print("merge_features.py: row %d is %s, the new run's %s" % (i, key(o), key(n)), file=sys.stderr)
            return 1
        for f, v in o["features"].items():
            if n["features"].get(f) != v:
                print("merge_features.py: %s: %s was %s, now %s" % (key(o), f, v, n["features"].get(f)),
                      file=sys.stderr)
                return 1
        added |= set(n["features"]) - set(o["features"])
        m = dict(o)
        m["features"], m["estimate"] = n["features"], n["estimate"]
        out.append(m)
    print("%d rows (%d compiled), features added: %s" % (len(out), sum("compiled" in r for r in out),
                                                         ", ".join(sorted(added)) or "none"), file=sys.stderr)
    with open(out_path, "w") as f:
        f.write(record_lines(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
