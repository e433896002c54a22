"""The layout of the committed JSON run documents (validate/results/README.md, "Files"), for the scripts that write
them; validate/record_lines.hpp is the same for the programs.

record_lines(doc) lays a document out so that a record is one line: the top-level object's keys one per line; an
array that holds objects or arrays (records, runs, rows) one element per line, each element compact; an object
that holds objects or arrays one key per line, its values laid out by the same rule; anything else (a scalar, an
array of scalars, an object of scalars and arrays of scalars) compact on its key's line. Compact is "," and ":"
with no spaces, as nlohmann's dump() writes it, so both writers break the same lines (a float's digits may
differ: see in_layout). The text parses back to the same document: key order kept, floats written by repr (the
shortest that round-trips).
"""
import gzip
import json
import re
import sys


def _compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _flat(value):
    """A value written on one line wherever it sits: a scalar, an array of scalars, an empty object."""
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return not any(isinstance(v, (dict, list)) for v in value)
    return True


def _layout(value, indent):
    pad = " " * indent
    if isinstance(value, dict) and (indent == 0 or not all(_flat(v) for v in value.values())) and value:
        items = [pad + " " + _compact(k) + ":" + _layout(v, indent + 1) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and not _flat(value):
        return "[\n" + ",\n".join(pad + " " + _compact(v) for v in value) + "\n" + pad + "]"
    return _compact(value)


def record_lines(doc):
    """doc as one-record-per-line JSON text, ending in a newline."""
    return _layout(doc, 0) + "\n"


# A JSON number: the one token two writers may spell differently (nlohmann's dump() writes a float that
# round-trips, not always the shortest: 56.095998734235764 where repr writes 56.09599873423576).
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def in_layout(text):
    """text is a JSON document laid out as record_lines() lays it out, whoever wrote its numbers."""
    return _NUMBER.sub("0", text) == _NUMBER.sub("0", record_lines(json.loads(text)))


def same_document(a, b):
    """a and b are the same JSON document: equal, with the same key order and the same types (1 is not 1.0)."""
    return a == b and json.dumps(a) == json.dumps(b)


def read_text(path):
    """A run document's text: NAME.json, or NAME.json.gz through gzip (the held-out sets' runs are committed so)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _write(path, text):
    """NAME.json.gz is written through gzip without a name or time in its header (as gzip -n writes it), so that
    the same document compresses to the same bytes."""
    data = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0) if path.endswith(".gz") else data)


def main(argv):
    """record_lines.py [--check] FILE...: rewrites each JSON file (NAME.json.gz through gzip) in this layout, after
    checking that the new text parses to the same document; --check rewrites nothing and names the files not in the
    layout (exit 1)."""
    check = argv[:1] == ["--check"]
    paths = argv[1:] if check else argv
    if not paths:
        sys.stderr.write("usage: record_lines.py [--check] FILE...\n")
        return 2
    bad = 0
    for path in paths:
        text = read_text(path)
        doc = json.loads(text)
        new = record_lines(doc)
        if not same_document(json.loads(new), doc):
            sys.stderr.write("record_lines.py: %s: the laid-out text parses to another document\n" % path)
            return 2
        if new == text or in_layout(text):
            continue
        if check:
            print("%s: not one record per line (python3 validate/record_lines.py %s rewrites it)" % (path, path))
            bad += 1
        else:
            _write(path, new)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
