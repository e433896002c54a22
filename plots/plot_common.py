"""What every memsim figure shares: the one-line errors, reading JSON (a file or "-" for standard input), the
output file's format by its extension, saving, and a kernel's colour. Nothing here computes a count."""
import json
import math
import os
import stat
import sys
import tempfile

import matplotlib.pyplot as plt

PROG = os.environ.get("MEMSIM_PLOT_PROG") or "memsim_plot"  # "memsim" when `memsim --plot` runs the script
MIN_DPI, MAX_DPI = 20, 1200  # FreeType refuses the 6-point labels below about 6 dpi; under 20 nothing is legible
MAX_PIXELS = 65535  # matplotlib's Agg renderer refuses a figure of 2^16 pixels or more a side
FORMATS = ("png", "svg")
MAX_INPUT_BYTES = 256 << 20  # a document read; memsim writes at most tens of MB (2^22 window counts)


class InputError(Exception):
    """A mistake in the command line or in an input file: one line on stderr, exit 2."""


class Malformed(Exception):
    """A section that is not what memsim writes; the message names the field."""


def read_json(path, what):
    """The JSON value of `path` ("-": standard input); `what` names the expected document in the messages."""
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read(MAX_INPUT_BYTES + 1)
        else:
            mode = os.stat(path).st_mode  # a FIFO or /dev/zero would be read without end; open() names a directory
            if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
                raise InputError(f"{name} is not a regular file; {what}")
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_INPUT_BYTES + 1)
        if len(text) > MAX_INPUT_BYTES:
            raise InputError(f"{name} is more than {MAX_INPUT_BYTES >> 20} MiB, more than memsim writes; {what}")
        return json.loads(text)
    except OSError as e:
        raise InputError(f"cannot read {name}: {e.strerror or e}")
    except UnicodeDecodeError:
        raise InputError(f"{name} is not JSON (not UTF-8 text); {what}")
    except json.JSONDecodeError as e:
        raise InputError(f"{name} is not JSON ({e.msg} at line {e.lineno} column {e.colno}); {what}")
    except RecursionError:
        raise InputError(f"{name} nests JSON arrays or objects too deeply to be a memsim document")
    except ValueError:  # an integer of more digits than Python converts
        raise InputError(f"{name} holds a number too long to be a memsim document's")


def is_number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer beyond any float
        return False


def plain(text):
    """Text drawn as it is: matplotlib would parse $...$ as mathematics (and fail on what it cannot)."""
    return str(text).replace("$", r"\$")


def check_dpi(dpi):
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise InputError(f"--dpi {dpi} is out of range ({MIN_DPI} to {MAX_DPI})")


def check_out_file(path):
    """An output picture: .png or .svg by its extension, in a directory that exists."""
    if not path:
        raise InputError("--out is empty: give a file name ending in .png or .svg")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise InputError(f"--out {path}: the extension picks the format, .png or .svg")
    if os.path.isdir(path):
        raise InputError(f"cannot write --out {path}: it is a directory")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise InputError(f"cannot write --out {path}: no directory {parent}")
    if not os.access(parent, os.W_OK):
        raise InputError(f"cannot write --out {path}: {parent} is not writable")


def check_pixels(path, size, dpi):
    w, h = (round(x * dpi) for x in size)
    if max(w, h) > MAX_PIXELS:
        raise InputError(f"{path} would be {w}x{h} pixels at --dpi {dpi}, more than matplotlib's {MAX_PIXELS} a "
                         "side; lower --dpi")


def save(fig, out_path, dpi):
    """PNG or SVG by the extension; the figure's size in inches x dpi is the picture's size in pixels. The picture
    appears whole or not at all: it is drawn into a temporary file in the same directory, then renamed over
    out_path (parallel runs writing one name left a corrupt SVG)."""
    svg = out_path.lower().endswith(".svg")
    fd, tmp = None, None
    try:  # an SVG without its date and with fixed ids: the same input gives the same file
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(out_path) + ".tmp.",
                                   dir=os.path.dirname(out_path) or ".")
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as f:
            fd = None
            with plt.rc_context({"svg.hashsalt": "memsim"} if svg else {}):
                fig.savefig(f, dpi=dpi, format="svg" if svg else "png", metadata={"Date": None} if svg else None)
        os.replace(tmp, out_path)
        tmp = None
    except OSError as e:
        raise InputError(f"cannot write {out_path}: {e.strerror or e}")
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        plt.close(fig)


def kernel_colours(kernels):
    """One colour per kernel name, stable within a figure set: the order the kernels are given in."""
    cmap = plt.get_cmap("tab20")
    return {k: cmap(i % 20) for i, k in enumerate(kernels)}


def config_text(cfg):
    """'2048x2048 f32, block 32x8, tile 32x32, pad 1' from a memsim report's "config"."""
    if not isinstance(cfg, dict):
        return ""
    parts = []
    m, b, t = cfg.get("matrix"), cfg.get("block"), cfg.get("tile")
    if isinstance(m, dict):
        parts.append(f"{m.get('width')}x{m.get('height')} {cfg.get('dtype', '')}".strip())
    if isinstance(b, dict):
        parts.append(f"block {b.get('x')}x{b.get('y')}")
    if isinstance(t, dict):
        parts.append(f"tile {t.get('x')}x{t.get('y')}")
    if cfg.get("shared_bytes_per_block"):
        parts.append(f"pad {cfg.get('pad')}")
    return ", ".join(parts)


def device_of(doc):
    """The device's name as memsim --plot records it, else the report's prediction's profile name."""
    plot = doc.get("plot") if isinstance(doc, dict) else None
    if isinstance(plot, dict) and isinstance(plot.get("device"), str):
        return plot["device"]
    pred = doc.get("prediction") if isinstance(doc, dict) else None
    if isinstance(pred, dict) and isinstance(pred.get("device"), str):
        return pred["device"]
    return "device not recorded"
