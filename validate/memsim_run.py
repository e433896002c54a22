"""What the validation scripts (studies/instruction_diagnostic.py, l1_wavefronts.py, read_back.py,
calibration/add_instructions.py, narrow_lanes_table.py, heldout/merged_pieces.py, ...) share: memsim's JSON report for
one configuration (one place that spells the command line), reading their input files (Nsight Compute's --csv pages
among them), and the project's rule for what a user can get wrong: one line on
stderr prefixed with the script's name, exit status 2, no traceback.

A script raises Error (a one-line message) wherever an input is wrong, also from worker threads, and runs its
main() through main_guard(), which prints the message and exits 2.
"""
import concurrent.futures
import csv
import glob
import gzip
import io
import json
import os
import subprocess
import sys
import zlib

# A configuration every memsim replays in a moment: check_binary() runs it before the real work.
PROBE = ("copy", "f32", "32x8", "64x64")
REPORT_KEYS = ("config", "sites", "prediction")


class Error(Exception):
    """An input the user can get wrong: the message is one line, shown as "SCRIPT: message", exit 2."""


def prog():
    return os.path.basename(sys.argv[0]) or "memsim_run"


def fail(message):
    """Prints "SCRIPT: message" on stderr and exits 2."""
    sys.stderr.write("%s: %s\n" % (prog(), " ".join(str(message).split("\n"))))
    sys.exit(2)


def main_guard(main, also=()):
    """Runs main(), turning an Error into its line on stderr and exit 2. `also`: more exception types (a missing or
    malformed input a script reads without checking) shown the same way, prefixed with their type's name."""
    try:
        return main()
    except Error as e:
        fail(e)
    except also as e:
        fail("%s: %s" % (type(e).__name__, e))


def emit_report(lines, path=None):
    """A report's lines on stdout, and into `path` too where given (a script's --report FILE)."""
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if path:
        with open(path, "w") as f:
            f.write(text)


def check_args(argv, doc, usage, low, high, free=()):
    """-h/--help anywhere: doc on stdout, exit 0. Otherwise low..high arguments (after the script's name),
    none of them (bar the positions in free, 0-based) an option: else "SCRIPT: usage: ..." and exit 2."""
    args = argv[1:]
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(doc.rstrip("\n") + "\n")
        sys.exit(0)
    for i, a in enumerate(args):
        if i not in free and a.startswith("-") and a != "-":
            fail("unknown option %s; usage: %s (--help for more)" % (a, usage))
    if not low <= len(args) <= high:
        fail("usage: %s (--help for more)" % usage)
    return args


def open_text(path, what):
    """The file opened for reading text, or Error naming path and what it should be. A name ending in .gz is read
    through gzip: the held-out sets' runs are committed gzipped (a tenth of the bytes, so the tree still fits what
    a GPU run may carry)."""
    if os.path.isdir(path):
        raise Error("%s is a directory, not %s" % (path, what))
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rt", newline="", encoding="utf-8")
        return open(path, newline="", encoding="utf-8")
    except FileNotFoundError:
        raise Error("%s: no such file (expected %s)" % (path, what)) from None
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror or e)) from None


def read_text(path, what):
    with open_text(path, what) as f:
        try:
            return f.read()
        except UnicodeDecodeError:
            raise Error("%s is not a text file (expected %s)" % (path, what)) from None
        except (gzip.BadGzipFile, EOFError, zlib.error):
            raise Error("%s is not a whole gzip file (expected %s)" % (path, what)) from None
        except OSError as e:
            raise Error("cannot read %s: %s" % (path, e.strerror or e)) from None


def read_json(path, what):
    """The JSON document in path, or Error: missing, a directory, unreadable or not JSON."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as e:
        where = " (line %d: %s)" % (e.lineno, e.msg) if isinstance(e, json.JSONDecodeError) else ""
        raise Error("%s is not JSON%s; expected %s" % (path, where, what)) from None


def run_files(folder):
    """The run documents in folder, in name order: NAME.json and NAME.json.gz alike (the held-out sets' runs are
    committed gzipped)."""
    return sorted(glob.glob(os.path.join(folder, "*.json")) + glob.glob(os.path.join(folder, "*.json.gz")))


def read_validation_run(path):
    """A memsim-validate run (RUN.json): a JSON object with a "records" array (schema memsim-validate/N)."""
    what = "a memsim-validate run (RUN.json)"
    run = read_json(path, what)
    schema = run.get("schema") if isinstance(run, dict) else None
    if (not isinstance(run, dict) or not isinstance(run.get("records"), list)
            or (schema is not None and not str(schema).startswith("memsim-validate/"))):
        kind = "a JSON %s" % type(run).__name__.replace("dict", "object").replace("list", "array")
        if isinstance(run, dict):
            kind += " with schema %s" % json.dumps(schema) if schema is not None else " without a \"records\" array"
        raise Error("%s is not a memsim-validate run (%s)" % (path, kind))
    return run


def read_microbench_run(path, bench=None):
    """A memsim-microbench run (a JSON object with a "runs" array) and its runs of benchmark `bench` (every run
    where None), or Error: missing, unreadable, not JSON or without runs."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        runs = doc["runs"]
        if not isinstance(runs, list):
            raise TypeError("runs is not an array")
        return doc, [r for r in runs if bench is None or r["bench"] == bench]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Error("%s: not a memsim-microbench run (%s)" % (path, e)) from None


def ncu_launches(path, what="an Nsight Compute --csv page"):
    """The launches of a --csv Nsight Compute page (one row per metric), in order: [(kernel, {metric: value})].
    Lines before its header (ncu's own log) are skipped; what names the page in an error."""
    text = read_text(path, what)
    start = text.find('"ID"')
    if start < 0:
        raise Error("%s has no Nsight Compute header" % path)
    launches = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        try:
            value = float(row["Metric Value"].replace(",", ""))
            launch = launches.setdefault(row["ID"], (row["Kernel Name"], {}))
        except (KeyError, AttributeError, ValueError):
            raise Error("%s: a row without a numeric Metric Value (ID %s)" % (path, row.get("ID"))) from None
        launch[1][row["Metric Name"]] = value
    return [launches[k] for k in sorted(launches, key=int)]


def field(obj, path, where):
    """obj[path[0]][path[1]]..., or Error naming where (a file and record, a memsim report) and the path."""
    for i, key in enumerate(path):
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            raise Error("%s has no %s" % (where, ".".join(str(k) for k in path[:i + 1]))) from None
    return obj


def run_memsim(binary, args, env=None):
    """stdout of `binary args`, or Error: missing binary, not executable, failed (with its last stderr line)."""
    if os.path.isdir(binary):
        raise Error("memsim binary %s is a directory" % binary)
    try:
        p = subprocess.run([binary] + list(args), capture_output=True, text=True, errors="replace", env=env)
    except FileNotFoundError:
        raise Error("memsim binary %s: no such file" % binary) from None
    except PermissionError:
        raise Error("memsim binary %s is not executable" % binary) from None
    except OSError as e:
        raise Error("cannot run memsim binary %s: %s" % (binary, e.strerror or e)) from None
    if p.returncode != 0:
        lines = [line.strip() for line in p.stderr.splitlines() if line.strip()]
        status = ("status %d" % p.returncode if p.returncode > 0 else "signal %d" % -p.returncode)
        if lines:
            raise Error("%s failed (%s): %s" % (binary, status, lines[-1]))
        raise Error("%s failed (%s) without a message: is it memsim?" % (binary, status))
    return p.stdout


def memsim_report(binary, args, env=None):
    """memsim's JSON report for args (which include --format json), checked to be one."""
    out = run_memsim(binary, args, env)
    try:
        report = json.loads(out)
    except ValueError:
        first = out.strip().splitlines()[0][:60] if out.strip() else ""
        raise Error("%s printed no JSON report (%s): is it memsim?"
                    % (binary, "printed %r" % first if first else "printed nothing")) from None
    if not isinstance(report, dict) or any(k not in report for k in REPORT_KEYS):
        raise Error("%s printed JSON that is no memsim report (expected the keys %s): is it memsim?"
                    % (binary, ", ".join(REPORT_KEYS)))
    return report


def memsim_json(binary, kernel, dtype, block, matrix, extra=(), env=None):
    """`memsim --format json` for kernel, dtype, block and matrix ("WxH" strings), extra options appended."""
    args = ["--format", "json", "--kernel", kernel, "--dtype", dtype, "--block", block, "--matrix", matrix]
    return memsim_report(binary, args + list(extra), env)


def memsim_json_for_config(binary, cfg, extra=(), env=None):
    """memsim's JSON report for a validation record's resolved config (a run's "config" object): its kernel,
    dtype, block, matrix, tile and (shared tiles) pad, one replay thread, extra options appended."""
    args = ["--tile", "%dx%d" % (cfg["tile"]["x"], cfg["tile"]["y"]), "--threads", "1"]
    if cfg.get("shared_bytes_per_block", 0) > 0 and "pad" in cfg:
        args += ["--pad", str(cfg["pad"])]
    return memsim_json(binary, cfg["kernel"], cfg["dtype"], "%dx%d" % (cfg["block"]["x"], cfg["block"]["y"]),
                       "%dx%d" % (cfg["matrix"]["width"], cfg["matrix"]["height"]), args + list(extra), env)


def check_binary(binary):
    """Error unless binary replays a small configuration and prints memsim's JSON report."""
    kernel, dtype, block, matrix = PROBE
    memsim_json(binary, kernel, dtype, block, matrix, ["--threads", "1"])


def parallel_map(fn, items, workers=2):
    """[fn(x) for x in items] on worker threads, in order; the first exception (an Error) is raised, the calls
    not yet started are cancelled."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(fn, x) for x in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
