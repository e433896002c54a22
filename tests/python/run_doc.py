"""run_doc.py DOC.md WORK_DIR: runs every ```python block of a walk-through (docs/python.md) in order, in one
namespace, in WORK_DIR (emptied first, python/ of the source tree linked into it), as a notebook would; exit 1 at
the first block that raises, naming its line. The blocks use Kernel Tuner, pandas and matplotlib: without one of them the file exits 77 saying which."""
import contextlib
import io
import os
import re
import shutil
import sys
import traceback

from harness import Skip  # noqa: F401

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(path):
    out, lang, start, lines = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if m and lang is None:
                lang, start, lines = m.group(1), n + 1, []
            elif line.rstrip() == "```" and lang is not None:
                if lang == "python":
                    out.append((start, "".join(lines)))
                lang = None
            elif lang is not None:
                lines.append(line)
    return out


def main(doc, work):
    for module in ("kernel_tuner", "pandas", "matplotlib"):
        try:
            __import__(module)
        except ImportError as e:
            print(f"SKIPPED: {doc} needs {module} ({e}); scripts/python-venv.sh BUILD_DIR installs Kernel Tuner "
                  "1.5.0 with pandas and matplotlib into BUILD_DIR/python-venv, which needs PyPI")
            return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    # The walk-through runs from the source tree's root: the files it reads, without the ones it writes.
    os.symlink(os.path.join(os.path.dirname(os.path.dirname(doc)), "python"), "python")
    namespace = {"__name__": "__main__"}
    found = blocks(doc)
    if not found:
        print(f"no python blocks in {doc}")
        return 1
    for line, code in found:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{doc}:{line}", "exec"), namespace)
        except Exception:  # noqa: BLE001 - the block's failure, with where it is
            print(out.getvalue(), end="")
            print(f"FAIL the block at {os.path.basename(doc)} line {line}")
            traceback.print_exc()
            return 1
        print(f"ran the block at line {line}:\n{out.getvalue()}")
    print(f"{len(found)} blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1]), sys.argv[2]))
