#!/usr/bin/env python3
"""Writes calibration.constants_hash into device profiles that memsim-calibrate wrote before it recorded one,
changing nothing else in the file: the hash of the "cost" block as it stands (model/profile.hpp,
cost_constants_hash: FNV-1a 64 of every number as "path=%.17g" lines in path order). Run it only on a profile
whose cost block is the fit's own (git log says so); memsim-calibrate writes the hash itself since.

  stamp_constants_hash.py model/devices/h100.json [...]     prints each file's hash; --check: only compare
"""
import json
import re
import sys


def constants_hash(cost):
    lines = {}

    def walk(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{path}.{k}" if path else k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]")
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            lines[path] = "%.17g" % float(v)

    walk(cost, "")
    h = 1469598103934665603
    for path in sorted(lines, key=lambda p: p.encode()):
        for c in f"{path}={lines[path]}\n".encode():
            h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def main(argv):
    check = "--check" in argv
    rc = 0
    for path in [a for a in argv if a != "--check"]:
        text = open(path, encoding="utf-8").read()
        doc = json.loads(text)
        if "calibration" not in doc:
            print(f"{path}: no calibration block", file=sys.stderr)
            rc = 1
            continue
        h = constants_hash(doc["cost"])
        old = doc["calibration"].get("constants_hash")
        print(f"{path}: {h}" + ("" if old in (None, h) else f" (the file says {old})"))
        if check:
            rc |= old != h
            continue
        if old is not None:
            text = re.sub(r'"constants_hash": "[0-9a-f]*"', f'"constants_hash": "{h}"', text)
        else:  # after the block's last field, in the file's own layout
            start = text.index('"calibration": {')
            end = text.index("\n  }", start)
            text = text[:end] + f',\n    "constants_hash": "{h}"' + text[end:]
        assert json.loads(text)["cost"] == doc["cost"]
        open(path, "w", encoding="utf-8").write(text)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
