"""memsim from Python: the command line's predictions as dicts (docs/python.md).

Every function here builds memsim's command-line options from its keyword arguments and runs the command's own
code in-process (memsim._memsim), returning what ``memsim ... --format json`` prints as Python objects: the same
checks, the same counts under Nsight Compute's metric names, the same one-line errors, raised as memsim.Error.
"""
import os as _os

_data = _os.path.join(_os.path.dirname(__file__), "data")
if _os.path.isdir(_data):
    # A wheel carries the device profiles and kernel headers a build-tree module reads from the source tree.
    _os.environ.setdefault("MEMSIM_DEVICE_DIR", _os.path.join(_data, "devices"))
    _os.environ.setdefault("MEMSIM_KERNEL_DIR", _os.path.join(_data, "include"))

from memsim import _memsim  # noqa: E402

Error = _memsim.Error
__version__ = _memsim.__version__

__all__ = ["Error", "__version__", "run", "predict", "kernel_file", "sweep", "to_frame", "kernels", "devices"]

# Options that shape the command's output rather than the prediction: the functions choose it themselves.
_NOT_HERE = {"format", "plot", "plot_out", "plot_site", "plot_instruction", "list_kernels", "list_devices", "help",
             "version"}


def run(*args):
    """What ``memsim ARGS --format json`` prints, as Python objects: ``run("--kernel", "naive,padded")``."""
    return _memsim.run([str(a) for a in args])


def _size(value, name):
    """(32, 8) or "32x8" -> "32x8"."""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_int(v) for v in value):
        return f"{int(value[0])}x{int(value[1])}"
    raise Error(f"{name} takes (X, Y) or 'XxY', got {value!r}")


def _is_int(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or type(v).__name__.startswith(("int", "uint"))


def _sizes(value, name):
    """One size, a list of them, or a string ("32x8,16x16", "all") -> the option's text."""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_int(v) for v in value):
        return _size(value, name)
    if isinstance(value, (tuple, list)) and value:
        return ",".join(_size(v, name) for v in value)
    raise Error(f"{name} takes (X, Y), 'XxY', a list of them or a comma-separated string, got {value!r}")


def _words(value, name):
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, str) for v in value):
        return ",".join(value)
    raise Error(f"{name} takes a name, a list of names or a comma-separated string, got {value!r}")


def _arguments(kernel, block, matrix, dtype, device, tile, pad, more, many):
    sizes = _sizes if many else _size
    names = _words if many else (lambda v, n: v if isinstance(v, str) else _words(v, n))
    args = ["--kernel", names(kernel, "kernel")]
    for option, value, text in (("--block", block, sizes), ("--matrix", matrix, sizes), ("--tile", tile, sizes)):
        if value is not None:
            args += [option, text(value, option[2:])]
    if dtype is not None:
        args += ["--dtype", names(dtype, "dtype")]
    if device is not None:
        args += ["--device", str(device)]
    if pad is not None:
        args += ["--pad", str(int(pad))]
    for key, value in more.items():
        if key in _NOT_HERE:
            raise Error(f"{key}= is not a prediction's option: the function picks the output itself")
        option = "--" + key.replace("_", "-")
        if value is True:
            args.append(option)
        elif value is False or value is None:
            continue
        else:
            args += [option, str(value)]
    return args


def _with_shortcuts(report):
    """The report with the prediction's main figures copied to its top level."""
    p = report["prediction"]
    for key in ("time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck", "bottleneck_share",
                "instructions", "instructions_basis", "occupancy"):
        report[key] = p.get(key)
    return report


def predict(kernel="padded", block=None, matrix=None, dtype=None, device=None, tile=None, pad=None, **more):
    """One launch analysed as ``memsim --format json`` does: the command's report (config, device, metrics under
    Nsight Compute's names, sites, findings, prediction, advice) with the prediction's main figures copied to the top
    level: time_us, effective_bandwidth_gbs, fraction_of_copy, bottleneck, bottleneck_share, instructions,
    instructions_basis and occupancy. Unset arguments take the command's defaults (32x8 block, 2048x2048 f32, h100).
    ``more``: any other option of the command, underscores for hyphens (regs=64, no_compile=True, exact=True,
    partitions=True, runtime_shape=True, threads=2, instructions=1.8e6, dram_read_bytes=3.4e8). Raises memsim.Error
    as the command exits 2.
    A list of kernels compares them (``run`` gives that document); predict takes one."""
    if not isinstance(kernel, str) or "," in kernel or kernel == "all":
        raise Error("predict() analyses one kernel; sweep() takes several")
    report = _memsim.run(_arguments(kernel, block, matrix, dtype, device, tile, pad, more, many=False))
    if "prediction" not in report:
        raise Error("predict() analyses one configuration on one device; sweep() takes lists")
    return _with_shortcuts(report)


def kernel_file(path, defines=None, block=None, matrix=None, dtype=None, device=None, tile=None, pad=None, **more):
    """A kernel of your own, from one header written against memsim's kernel interface (docs/kernel_interface.md),
    analysed as ``memsim --kernel-file PATH [--define NAME=VALUE ...]`` does: the same report as predict().
    defines: {"NAME": value} or ["NAME=VALUE", ...]; the file is compiled into a plugin once and cached."""
    if isinstance(defines, dict):
        defines = [f"{k}={v}" for k, v in defines.items()]
    args = ["--kernel-file", _os.fspath(path)]
    for d in defines or []:
        args += ["--define", str(d)]
    # _arguments' first two words name a suite kernel: the file names its own.
    args += _arguments("", block, matrix, dtype, device, tile, pad, more, many=False)[2:]
    report = _memsim.run(args)
    if "prediction" not in report:
        raise Error("kernel_file() analyses one configuration on one device; run() takes the rest")
    return _with_shortcuts(report)


def sweep(kernel="padded", block=None, matrix=None, dtype=None, device=None, tile=None, pad=None, as_frame=False,
          refused=False, **more):
    """Every combination of the lists, analysed and ranked as ``memsim --block ... --format json`` does: a list of
    records (the document's "rows": rank, group_rank, kernel, dtype, matrix, block, tile, pad,
    shared_bytes_per_block, time_us, effective_bandwidth_gbs, fraction_of_copy, bottleneck, bottleneck_share,
    occupancy, instructions, instructions_basis, caveats: the prediction's, as texts), best first. kernel, dtype: a
    name or a list; block, matrix, tile: (X, Y), a list of them, or text ("32x8,16x16"; block "all": the shapes
    tuners try). A single value is a sweep of one. as_frame: a pandas DataFrame (to_frame). refused: the whole document instead, with the configurations
    the device refuses and why ("refused"), and the best ("best")."""
    doc = _memsim.run(_arguments(kernel, block, matrix, dtype, device, tile, pad, more, many=True), True)
    if refused:
        return doc
    return to_frame(doc["rows"]) if as_frame else doc["rows"]


def to_frame(records):
    """Sweep records as a pandas DataFrame, nested fields flattened with "_" (block_x, matrix_width,
    occupancy_blocks_per_sm). Raises ImportError where pandas is not installed."""
    import pandas

    return pandas.json_normalize(records, sep="_")


def kernels():
    """The suite: [{"name", "summary", "from", "sites"}], as ``memsim --list-kernels``."""
    return _memsim.run(["--list-kernels"])


def devices():
    """The device profiles, as ``memsim --list-devices --format json`` (a profile that does not load: its error)."""
    return _memsim.run(["--list-devices"])
