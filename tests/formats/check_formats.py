#!/usr/bin/env python3
"""CTest for memsim's scriptable outputs (docs/cli.md), read the way a user's script reads them: the standard
library's json and csv modules, nothing memsim-specific.

  - --format json: one object; its "device" block names the profile and its calibration.
  - --format csv: one long table, header section,index,name,value; every scalar of the JSON report is one row
    (the rule of docs/cli.md, written out again here), so nothing the JSON says is missing from the CSV.
  - --format ncu-csv: read by one reader together with a committed Nsight Compute CSV
    (validate/results/odd_sizes.ncu.csv, H100): the same header, and for the same launches the same request,
    sector and shared-instruction counts as the GPU measured.
  - --list-kernels and --list-devices with --format json and csv.
  - With "progress": the progress line of a long replay and a sweep, on a pseudo-terminal's stderr only.
Expected values are closed forms worked out in the comments or measured on the GPU, not memsim's own output.

  check_formats.py MEMSIM_BINARY SOURCE_DIR [progress WORK_DIR]
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import time

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr)


def memsim(*args, code=0):
    r = subprocess.run([MEMSIM] + list(args), capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check(r.returncode == code, "memsim %s: exit %d, want %d (%s)" % (" ".join(args), r.returncode, code,
                                                                    r.stderr.strip()))
    return r


# ---------------------------------------------------------------------------------------------------------
# JSON and the long CSV

# coalesced f32 64x64, block 32x8, tile 32x32: 4 blocks of 8 warps; every site 64 * 64 / 32 = 128 warp
# instructions; a global row of 32 floats is 4 sectors (512 a site); the unpadded tile's column read puts all
# 32 lanes on one bank: 32 wavefronts an instruction (4096), 31 of them conflicts (3968).
ARGS = ["--kernel", "coalesced", "--matrix", "64x64", "--threads", "1"]


def json_leaves(report):
    """(section, index, name) -> value for every scalar, by the rule of docs/cli.md."""
    out = {}

    def walk(v, section, index, path):
        if (section == "partitions" and path.startswith("windows.")
                and path not in ("windows.total", "windows.shown", "windows.every", "windows.downsampled",
                                 "windows.note")) or (section == "sites" and path == "first_block_bank_words"):
            return
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, section, index, k if not path else path + "." + k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, section, str(i) if not index else index + "." + str(i), path)
        else:
            out[(section, index, path)] = v

    for key, v in report.items():
        if isinstance(v, (dict, list)):
            walk(v, key, "", "")
        else:
            out[("run", "", key)] = v
    return out


def same_value(text, v):
    if v is None:
        return text == ""
    if isinstance(v, bool):
        return text == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return float(text) == float(v)
    return text == v


def check_json_and_csv(args, label):
    report = json.loads(memsim(*args, "--format", "json").stdout)
    text = memsim(*args, "--format", "csv").stdout
    rows = list(csv.reader(io.StringIO(text)))
    check(rows[0] == ["section", "index", "name", "value"], "%s: CSV header %s" % (label, rows[0]))
    check(all(len(r) == 4 for r in rows), "%s: a CSV row without 4 fields" % label)
    got = {(r[0], r[1], r[2]): r[3] for r in rows[1:]}
    check(len(got) == len(rows) - 1, "%s: a (section, index, name) twice in the CSV" % label)
    want = json_leaves(report)
    check(set(got) == set(want), "%s: CSV rows differ from the JSON's scalars: %s" % (
        label, sorted(set(got) ^ set(want))[:6]))
    for key in set(got) & set(want):
        check(same_value(got[key], want[key]), "%s: %s is %r in the CSV, %r in the JSON" % (label, key, got[key],
                                                                                          want[key]))
    return report, got


def test_json_and_csv():
    report, rows = check_json_and_csv(ARGS, "coalesced 64x64")
    check(report["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 512, "JSON: load sectors")
    check(report["sites"][2]["wavefronts"] == 4096, "JSON: column-read wavefronts")
    check(report["device"]["profile"] == "h100" and report["device"]["calibrated"] is True, "JSON: device block")
    for key, want in ((("metrics", "", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 512),
                      (("sites", "2", "wavefronts"), 4096), (("sites", "2", "bank_conflicts"), 3968),
                      (("sites", "0", "sectors"), 512), (("config", "", "grid.x"), 2), (("config", "", "blocks"), 4)):
        check(float(rows[key]) == want, "CSV %s = %s, want %s" % (key, rows.get(key), want))
    # The prediction, the device and every cost term are in the CSV.
    for name in ("time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck"):
        check(("prediction", "", name) in rows, "CSV: no prediction row " + name)
    terms = [k[2] for k in rows if k[0] == "prediction" and k[2].startswith("terms_us.")]
    check(len(terms) == 11 and "terms_us.DRAM bandwidth" in terms, "CSV: cost terms %s" % terms)
    for name, want in (("profile", "h100"), ("calibrated", "true"), ("cost_basis", "calibrated")):
        check(rows.get(("device", "", name)) == want, "CSV: device %s = %s" % (name, rows.get(("device", "", name))))
    # Effective bandwidth = 2 x 64 x 64 x 4 bytes / time; bytes / (us x 1e3) = GB/s.
    t = float(rows[("prediction", "", "time_us")])
    bw = float(rows[("prediction", "", "effective_bandwidth_gbs")])
    check(abs(bw - 2 * 64 * 64 * 4 / (t * 1e3)) < 1e-9 * bw, "CSV: bandwidth %s against time %s" % (bw, t))
    # A stand-in says so in every format.
    _, a100 = check_json_and_csv(ARGS + ["--device", "a100"], "coalesced 64x64 a100")
    check(a100.get(("device", "", "calibrated")) == "false" and a100.get(("device", "", "cost_basis")) == "data_sheet",
          "CSV: a100 is not a stand-in")
    check(a100.get(("device", "", "provenance"), "").startswith("NOT CALIBRATED"), "CSV: a100 provenance")
    # Partitions (gtx280 counts them always) and findings-free reports flatten by the same rule.
    check_json_and_csv(["--kernel", "padded", "--matrix", "256x256", "--device", "gtx280"], "padded gtx280")


# ---------------------------------------------------------------------------------------------------------
# The ncu layout, read with the same code as a real Nsight Compute CSV

def read_ncu_csv(text, where):
    """A `ncu --csv --metrics` details page: skips ncu's own ==PROF== / ==WARNING== lines and anything before the
    header; returns the header and {(ID, kernel, block, grid): {metric: (unit, value)}}, values as floats with
    ncu's thousands separators removed. The one reader for memsim's output and Nsight Compute's."""
    rows = list(csv.reader(io.StringIO(text)))
    at = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    check(at is not None, where + ": no header row")
    header = rows[at]
    ix = {n: i for i, n in enumerate(header)}
    launches = {}
    for r in rows[at + 1:]:
        if len(r) != len(header):
            continue
        key = (r[ix["ID"]], r[ix["Kernel Name"]], r[ix["Block Size"]], r[ix["Grid Size"]])
        value = float(r[ix["Metric Value"]].replace(",", ""))
        launches.setdefault(key, {})[r[ix["Metric Name"]]] = (r[ix["Metric Unit"]], value)
    return header, launches


# The counts memsim and the GPU agree on exactly (README: 1040 of 1040 requests and sectors). Shared-memory
# wavefronts run a few percent above memsim's on the hardware (docs/hardware.md), and on ragged edges the GPU
# also counts shared instructions whose lanes are all predicated off, which memsim does not: not compared.
EXACT = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")


def test_ncu_csv():
    real_path = os.path.join(SOURCE, "validate", "results", "odd_sizes.ncu.csv")
    with open(real_path, encoding="utf-8") as f:
        real_header, real = read_ncu_csv(f.read(), real_path)
    with open(os.path.join(SOURCE, "validate", "results", "odd_sizes.json"), encoding="utf-8") as f:
        records = json.load(f)["records"]
    compared = 0
    for rec in records:
        c = rec["config"]
        kernel_name = rec["measured"]["ncu_kernel_name"]
        block = "(%d, %d, 1)" % (c["block"]["x"], c["block"]["y"])
        grid = "(%d, %d, 1)" % (c["grid"]["x"], c["grid"]["y"])
        measured = [m for k, m in real.items() if k[1] == kernel_name and k[2] == block and k[3] == grid]
        if len(measured) != 1:
            continue
        out = memsim("--kernel", c["kernel"], "--dtype", c["dtype"], "--matrix",
                     "%dx%d" % (c["matrix"]["width"], c["matrix"]["height"]), "--block",
                     "%dx%d" % (c["block"]["x"], c["block"]["y"]), "--format", "ncu-csv").stdout
        header, ours = read_ncu_csv(out, "memsim --format ncu-csv")
        check(header == real_header, "ncu-csv header %s differs from Nsight Compute's %s" % (header, real_header))
        check(len(ours) == 1, "ncu-csv: %d launches, want 1" % len(ours))
        (key, metrics), = ours.items()
        check(key[2:] == (block, grid), "ncu-csv: launch shape %s, want %s" % (key[2:], (block, grid)))
        for m in EXACT:
            check(m in metrics and m in measured[0], "%s: %s missing" % (rec["id"], m))
            if m in metrics and m in measured[0]:
                check(metrics[m] == measured[0][m], "%s: %s %s, the GPU %s" % (rec["id"], m, metrics[m],
                                                                           measured[0][m]))
        time = [v for name, v in metrics.items() if name == "memsim__time_predicted"]
        check(len(time) == 1 and time[0][0] == "usecond" and time[0][1] > 0, "ncu-csv: no predicted time")
        compared += 1
    check(compared >= 30, "only %d of the committed launches compared" % compared)
    # The rows of memsim's prediction name the profile and whether it is calibrated.
    text = memsim("--device", "a100", "--format", "ncu-csv").stdout
    sections = {r[11] for r in csv.reader(io.StringIO(text)) if len(r) == 15}
    check("memsim prediction: a100, NOT CALIBRATED (data_sheet)" in sections, "ncu-csv sections %s" % sections)


# ---------------------------------------------------------------------------------------------------------
# The lists

KERNELS = {"copy", "copy_shared", "naive", "naive_read", "coalesced", "padded", "diagonal", "coarse", "fine",
           "swizzle", "vec4", "vec4_shared", "reg4x4", "best"}


def test_lists():
    kernels = json.loads(memsim("--list-kernels", "--format", "json").stdout)
    check({k["name"] for k in kernels} == KERNELS, "--list-kernels json: %s" % [k.get("name") for k in kernels])
    coalesced = next(k for k in kernels if k["name"] == "coalesced")
    check([s["space"] for s in coalesced["sites"]] == ["global", "shared", "shared", "global"],
          "--list-kernels json: coalesced's sites")
    rows = list(csv.DictReader(io.StringIO(memsim("--list-kernels", "--format", "csv").stdout)))
    check({r["name"] for r in rows} == KERNELS and all(r["summary"] for r in rows), "--list-kernels csv")
    devices = json.loads(memsim("--list-devices", "--format", "json").stdout)
    by_name = {d["profile"]: d for d in devices}
    check({"h100", "a100", "v100", "gtx280", "8800gtx"} <= set(by_name), "--list-devices json: %s" % list(by_name))
    check(by_name["h100"]["calibrated"] is True and by_name["a100"]["calibrated"] is False,
          "--list-devices json: calibrated flags")
    with open(os.path.join(SOURCE, "model", "devices", "h100.json"), encoding="utf-8") as f:
        date = json.load(f)["calibration"]["date"]
    check(by_name["h100"]["calibration"]["date"] == date, "--list-devices json: h100's calibration date")
    rows = {r["profile"]: r for r in csv.DictReader(io.StringIO(memsim("--list-devices", "--format", "csv").stdout))}
    check(rows["gtx280"]["cost_basis"] == "published" and rows["v100"]["calibrated"] == "false",
          "--list-devices csv")
    for lst in ("--list-kernels", "--list-devices"):
        r = memsim(lst, "--format", "ncu-csv", code=2)
        check(r.stdout == "" and r.stderr.startswith("memsim: ") and r.stderr.count("\n") == 1,
              "%s --format ncu-csv: %r" % (lst, r.stderr))


# ---------------------------------------------------------------------------------------------------------
# The progress line (app/progress.hpp): a replay or sweep that takes more than about a second shows its progress
# on stderr when stderr is a terminal (a pseudo-terminal here), never on stdout, so the JSON on stdout stays
# parseable (the CSV formats write stdout the same way); with stderr a pipe, or for work done within a second,
# nothing is printed.


def run(args, tty):
    """(exit code, stdout, stderr, seconds) with stderr a pseudo-terminal when tty, else a pipe."""
    start = time.monotonic()
    if not tty:
        r = subprocess.run(args, capture_output=True, stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout.decode(), r.stderr.decode(), time.monotonic() - start
    master, slave = os.openpty()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed (Linux: EIO)
            break
        if not chunk:
            break
        err += chunk
    out, _ = p.communicate()
    os.close(master)
    return p.returncode, out.decode(), err.decode(), time.monotonic() - start


def slow_run(extra):
    """A replay of every block that takes more than 1.5 s here (the smallest of a few sizes that does), run with
    stderr a pipe: its arguments, side, stdout and stderr."""
    for side in (2048, 4096, 8192, 12288, 16384, 24576, 32768):  # small first: a sanitized build is slow
        args = [MEMSIM, "--matrix", "%dx%d" % (side, side), "--exact", "--threads", "1"] + extra
        code, out, err, seconds = run(args, tty=False)
        if code == 0 and seconds > 1.5:
            return args, side, out, err
    return None, None, None, None


def test_progress(work):
    os.makedirs(work, exist_ok=True)
    # Quick work: nothing on a terminal either.
    code, out, err, seconds = run([MEMSIM, "--format", "json"], tty=True)
    check(code == 0, "the default run failed: %r" % err[-300:])
    # A loaded machine (a parallel build beside the tests) can stretch it past the second the line waits for.
    check(err == "" or seconds > 1.0, "a quick run printed on the terminal: %r" % err[:200])
    json.loads(out)

    args, side, out, err = slow_run(["--format", "json"])
    check(args is not None, "no replay took more than 1.5 s")
    if args:
        # With stderr a pipe (a log, a script): no progress at all.
        check(err == "", "progress on a pipe: %r" % err[:200])
        json.loads(out)
        code, out, err, _ = run(args, tty=True)
        check(code == 0, "slow run failed: %r" % err[-300:])
        # The run's replays: the kernel's, then the copy's (for the fraction of copy); on a loaded machine the
        # run may pass 1.5 s with only one of them past the second the line waits for.
        stages = ("memsim: replaying padded %dx%d f32: " % (side, side), "memsim: replaying copy, ")
        check(any(s in err for s in stages) and "% (" in err and " blocks)" in err,
              "no progress line on the terminal: %r" % err[:300])
        check(err.endswith("\r\x1b[K"), "the progress line is not cleared at the end: %r" % err[-80:])
        check("\r" not in out and "memsim:" not in out, "progress reached stdout")
        report = json.loads(out)
        check(report["config"]["replay"]["path"] == "full", "the slow run did not replay every block")

    # A sweep: the sector map of --kernel all replays the whole suite, diagonal of it in full; its data file needs
    # no drawing.
    for side in (2048, 4096, 8192, 16384, 24576, 32768):
        sweep = [MEMSIM, "--kernel", "all", "--matrix", "%dx%d" % (side, side), "--threads", "1", "--plot", "sectors",
                 "--plot-out",
                 os.path.join(work, "sectors.json")]
        code, out, err, seconds = run(sweep, tty=True)
        if seconds > 1.5:
            check(code == 0, "sweep failed: %r" % err[-300:])
            check("memsim: sector map, launch " in err and re.search(r" of \d+", err), "no sweep progress: %r" % err[:300])
            check("memsim:" not in out, "sweep progress reached stdout")
            break

    # A sweep of blocks (docs/cli.md, "Sweeps"): its progress counts configurations; its JSON stays clean.
    for side in (1024, 2048, 4096, 8192):
        sweep = [MEMSIM, "--kernel", "all", "--block", "32x8,16x16,8x32", "--matrix", "%dx%d" % (side, side),
                 "--threads", "1", "--format", "json"]
        code, out, err, seconds = run(sweep, tty=True)
        if seconds > 1.5:
            check(code == 0, "block sweep failed: %r" % err[-300:])
            check("memsim: sweep: " in err and " predictions)" in err, "no block sweep progress: %r" % err[:300])
            check(err.endswith("\r\x1b[K"), "the block sweep's progress line is not cleared: %r" % err[-80:])
            check("memsim:" not in out, "block sweep progress reached stdout")
            json.loads(out)
            break


def main():
    global MEMSIM, SOURCE
    if len(sys.argv) not in (3, 5) or (len(sys.argv) == 5 and sys.argv[3] != "progress"):
        print("usage: check_formats.py MEMSIM_BINARY SOURCE_DIR [progress WORK_DIR]", file=sys.stderr)
        return 2
    MEMSIM, SOURCE = sys.argv[1], sys.argv[2]
    if len(sys.argv) == 5:
        test_progress(sys.argv[4])
    else:
        for test in (test_json_and_csv, test_ncu_csv, test_lists):
            test()
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
