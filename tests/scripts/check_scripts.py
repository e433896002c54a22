#!/usr/bin/env python3
"""CTest for the validation scripts' input checks (the project's rule: every input a user can get wrong gives
one line on stderr, prefixed with the script's name, and exit status 2; never a traceback, never an empty or
wrong output with exit 0).

Runs lab/studies/l1_wavefronts/l1_wavefronts.py, recorded_runs.py, store_merge.py, microbench.py, terms.py, read_back.py,
lab/heldout/judge.py, naive_by_piece.py, merged_pieces.py, instruction_diagnostic.py, lab/calibration/add_instructions.py,
order_latency_table.py, narrow_lanes_table.py, add_l2_write_sectors.py, drain_merges_table.py and
lab/calibration/holdout_by_kernel.py on small crafted bad inputs (missing files, directories, non-JSON, wrong-kind
JSON and CSV, a MATRIX other than the CSV's,
runs without the counts a script needs, binaries that are no memsim) and, as positive controls, on small good ones; "memsim"
there is a tiny shell script (FAKE_MEMSIM below), so no real replay runs. Then validate/run_suite.sh,
calibration/run_calibration.sh, studies/ncu_counters.sh and scripts/calibrate_gpu.sh with bad arguments and
stages, and with an nvidia-smi that fails first on PATH (no GPU, also on a machine with one), beside a cmake and
ncu that would leave a marker if anything got as far as building or profiling.

  check_scripts.py VALIDATE_DIR WORK_DIR
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

# The lab's scripts (lab/calibration, lab/studies) are checked beside the validation stage's.
LAB = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lab"))

# memsim's JSON report, enough of it for the scripts: grid = matrix / tile (default 32x32); --matrix without an
# "x" refused as memsim refuses it.
FAKE_MEMSIM = r"""#!/bin/sh
m=2048x2048; t=32x32
while [ $# -gt 0 ]; do
  case $1 in --matrix) m=$2; shift ;; --tile) t=$2; shift ;; esac
  shift
done
case $m in *x*) ;; *) echo "memsim: invalid --matrix '$m': no 'x' between the two sides" >&2; exit 2 ;; esac
w=${m%x*}; h=${m#*x}; tx=${t%x*}; ty=${t#*x}
printf '{"config": {"grid": {"x": %d, "y": %d}}, "sites": [{"space": "global", "requests": 8, "sectors": 32, ' \
  $(( (w + tx - 1) / tx )) $(( (h + ty - 1) / ty ))
printf '"ideal_sectors": 32, "l1_wavefronts": 8}, {"space": "shared", "wavefronts": 8}], "prediction": {"time_us": '
printf '10.0, "instructions": 100, "open_partial_lines": 20000, "read_back_fraction": 0.05, "caveats": []}}\n'
"""
EMPTY_JSON_MEMSIM = "#!/bin/sh\necho '{}'\n"
MARKER_TOOL = "#!/bin/sh\necho \"$0 $*\" >> \"%s\"\nexit 97\n"  # cmake, ncu: must never run
NO_GPU = "#!/bin/sh\necho 'NVIDIA-SMI has failed (fake)' >&2\nexit 9\n"

NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
              '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
TOTAL = "l1tex__data_pipe_lsu_wavefronts.sum"
SHARED = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"


def ncu_row(launch, kernel, metric, value, block="(32, 8, 1)", grid="(2, 2, 1)"):
    return ('"%d","1","memsim-validate","127.0.0.1","%s","1","7","%s","%s","0","9.0","Command line profiler '
            'metrics","%s","","%s"' % (launch, kernel, block, grid, metric, value))


SUITE_KERNEL = "void suite_kernel_scalar<Copy, float>(DeviceMemory<T2>, LaunchShape)"


def record(kernel="copy", dtype="f32", matrix=(8192, 8192), block=(32, 8), metrics=None, time_us=100.0):
    width, height = matrix
    elem = {"f16": 2, "f32": 4, "f64": 8}[dtype]
    return {"id": "%s %s %dx%d block %dx%d" % (kernel, dtype, width, height, block[0], block[1]),
            "config": {"kernel": kernel, "dtype": dtype, "matrix": {"width": width, "height": height},
                       "block": {"x": block[0], "y": block[1]}, "tile": {"x": 32, "y": 32},
                       "matrix_bytes": width * height * elem, "pad": 0, "shared_bytes_per_block": 0},
            "measured": {"time_us": {"median": time_us}},
            "predicted": {"time_us": time_us * 0.9},
            "metrics": metrics or {}}


def run_doc(records):
    return {"schema": "memsim-validate/1", "records": records}


class Checker:
    def __init__(self, validate, work):
        self.validate = validate
        self.work = work
        self.failures = []
        self.count = 0

    def path(self, name):
        return os.path.join(self.work, name)

    def write(self, name, content, mode=None):
        p = self.path(name)
        with open(p, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
        if mode:
            os.chmod(p, mode)
        return p

    def run(self, argv, env=None):
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace", env=env, timeout=60,
                           cwd=self.work)
        return p.returncode, p.stdout, p.stderr

    def expect_error(self, name, argv, substring, env=None, prefix=None):
        """argv must exit 2 with one stderr line "PREFIX: ...substring...", nothing on stdout, no traceback."""
        self.count += 1
        script = argv[1] if len(argv) > 1 and argv[1].endswith((".py", ".sh")) else argv[0]
        prefix = prefix or os.path.basename(script)
        rc, out, err = self.run(argv, env)
        lines = [line for line in err.splitlines() if line.strip()]
        problems = []
        if rc != 2:
            problems.append("exit status %d, not 2" % rc)
        if "Traceback" in err:
            problems.append("a traceback")
        if len(lines) != 1:
            problems.append("%d stderr lines, not 1" % len(lines))
        elif not lines[0].startswith(prefix + ": "):
            problems.append("stderr not prefixed %r" % (prefix + ": "))
        if lines and substring not in lines[0]:
            problems.append("stderr lacks %r" % substring)
        if out.strip():
            problems.append("output on stdout")
        if problems:
            self.failures.append("%s: %s\n    stderr: %s\n    stdout: %s"
                                 % (name, "; ".join(problems), err.strip()[:600], out.strip()[:200]))

    def expect_ok(self, name, argv, substrings, env=None):
        """argv must exit 0 with each of substrings on stdout and nothing on stderr."""
        self.count += 1
        rc, out, err = self.run(argv, env)
        problems = []
        if rc != 0:
            problems.append("exit status %d, not 0" % rc)
        if err.strip():
            problems.append("stderr not empty")
        problems += ["stdout lacks %r" % s for s in substrings if s not in out]
        if problems:
            self.failures.append("%s: %s\n    stderr: %s\n    stdout: %s"
                                 % (name, "; ".join(problems), err.strip()[:600], out.strip()[:300]))


def check_python_scripts(c):
    py = sys.executable
    v = c.validate
    l1 = [py, os.path.join(LAB, "studies", "l1_wavefronts", "l1_wavefronts.py")]
    rb = [py, os.path.join(LAB, "studies", "read_back", "read_back.py")]
    idiag = [py, os.path.join(LAB, "studies", "instruction_diagnostic", "instruction_diagnostic.py")]
    add = [py, os.path.join(LAB, "calibration", "add_instructions.py")]

    memsim = c.write("memsim", FAKE_MEMSIM, 0o755)
    empty_memsim = c.write("memsim_empty", EMPTY_JSON_MEMSIM, 0o755)
    not_exec = c.write("memsim_not_executable", FAKE_MEMSIM, 0o644)
    missing = c.path("no_such_file")
    directory = c.work
    text = c.write("text.txt", "hello, world\nnot, a, csv\n")
    garbage = c.write("garbage.bin", bytes(range(256)) * 4)
    array = c.write("array.json", "[1, 2, 3]\n")
    microbench_doc = {"tool": "memsim-microbench", "format": 1, "runs": [
        {"bench": "issue_copy", "params": {"rounds": 16, "tile": 0}, "counts": {"blocks": 4}},
        {"bench": "issue_tile", "params": {"rounds": 0, "tile": 1}, "counts": {"blocks": 4}},
        {"bench": "stream_copy", "params": {}, "counts": {"blocks": 4}}]}
    microbench = c.write("microbench.json", json.dumps(microbench_doc))
    no_issue = c.write("no_issue.json", json.dumps(dict(microbench_doc, runs=microbench_doc["runs"][2:])))
    bad_rounds = c.write("bad_rounds.json", json.dumps(dict(microbench_doc, runs=[
        {"bench": "issue_copy", "params": {"rounds": "many"}, "counts": {}}])))

    # Validation runs: one with DRAM reads and instruction counts on a judged, large configuration, one
    # without any ncu data, one only of small matrices, one with a broken record.
    counted = {"dram__bytes_read.sum": {"measured": 8192 * 8192 * 4 * 1.2},
               "smsp__inst_executed.sum": {"measured": 123456.0}}
    good_run = c.write("run.json", json.dumps(run_doc([record(block=(16, 16), metrics=counted)])))
    no_ncu_run = c.write("run_no_ncu.json", json.dumps(run_doc([record(), record(matrix=(256, 256))])))
    small_run = c.write("run_small.json", json.dumps(run_doc([record(matrix=(512, 512), metrics=counted)])))
    broken = record(metrics=counted)
    del broken["config"]["tile"]
    broken_run = c.write("run_broken.json", json.dumps(run_doc([broken])))
    other_schema = c.write("run_other.json", json.dumps({"schema": "something-else/1", "records": []}))

    # ncu CSVs for l1_wavefronts.py: 64x64 f32 copy, block 32x8: a 2x2 grid.
    log = "==PROF== Connected to process 1 (memsim-validate)\n"
    good_rows = [ncu_row(0, SUITE_KERNEL, TOTAL, "1,100"), ncu_row(0, SUITE_KERNEL, SHARED, "0")]
    l1_good = c.write("l1.csv", log + NCU_HEADER + "\n" + "\n".join(good_rows) + "\n")
    l1_header = c.write("l1_header.csv", log + NCU_HEADER + "\n")
    l1_no_metric = c.write("l1_no_metric.csv",
                           NCU_HEADER + "\n" + ncu_row(0, SUITE_KERNEL, "dram__bytes.sum", "5") + "\n")
    l1_other = c.write("l1_other.csv", NCU_HEADER + "\n" + ncu_row(0, "void memcpy_kernel<float>(float *)", TOTAL, "5")
                       + "\n")
    l1_nan = c.write("l1_nan.csv", NCU_HEADER + "\n" + ncu_row(0, SUITE_KERNEL, TOTAL, "n/a") + "\n")
    l1_raw = c.write("l1_raw.csv", '"ID","Kernel Name","Block Size","Grid Size","%s"\n"0","%s","(32, 8, 1)",'
                     '"(2, 2, 1)","5"\n' % (TOTAL, SUITE_KERNEL))

    # ncu CSVs for add_instructions.py.
    issue_kernel = "void issue_%s<%d>(const float *, float *, int)"
    issue_rows = [ncu_row(0, issue_kernel % ("copy", 16), "smsp__inst_executed.sum", "3,801,088"),
                  ncu_row(1, issue_kernel % ("tile", 0), "smsp__inst_executed.sum", "1,000")]
    issue_good = c.write("issue.csv", log + NCU_HEADER + "\n" + "\n".join(issue_rows) + "\n")
    issue_partial = c.write("issue_partial.csv", NCU_HEADER + "\n" + issue_rows[0] + "\n")
    issue_nan = c.write("issue_nan.csv", NCU_HEADER + "\n" + issue_rows[0].replace("3,801,088", "n/a") + "\n")
    issue_none = c.write("issue_none.csv", NCU_HEADER + "\n")

    # Arguments, binaries and files every memsim-calling script shares.
    for name, script, tail in (("l1_wavefronts", l1, ["64x64", l1_good]), ("read_back", rb, [good_run]),
                               ("instruction_diagnostic", idiag, [good_run])):
        c.expect_error(name + " no arguments", script, "usage:")
        c.expect_error(name + " an unknown option", script + ["--bogus"] + tail, "unknown option --bogus")
        c.expect_ok(name + " --help", script + ["--help"], ["MEMSIM_BINARY"])
        c.expect_ok(name + " -h", script + ["-h"], ["MEMSIM_BINARY"])
        c.expect_error(name + " memsim missing", script + [missing] + tail, "no such file")
        c.expect_error(name + " memsim a directory", script + [directory] + tail, "is a directory")
        c.expect_error(name + " memsim not executable", script + [not_exec] + tail, "not executable")
        c.expect_error(name + " memsim /bin/false", script + ["/bin/false"] + tail, "failed (status 1)")
        c.expect_error(name + " memsim /bin/echo", script + ["/bin/echo"] + tail, "printed no JSON report")
        c.expect_error(name + " memsim prints {}", script + [empty_memsim] + tail, "no memsim report")
        file_args = tail[:-1]
        what = "NCU" if name == "l1_wavefronts" else "RUN"
        c.expect_error("%s %s missing" % (name, what), script + [memsim] + file_args + [missing], "no such file")
        c.expect_error("%s %s a directory" % (name, what), script + [memsim] + file_args + [directory],
                       "is a directory")
        c.expect_error("%s %s binary" % (name, what), script + [memsim] + file_args + [garbage], "not a")
    for name, script in (("read_back", rb), ("instruction_diagnostic", idiag)):
        c.expect_error(name + " RUN not JSON", script + [memsim, text], "is not JSON")
        c.expect_error(name + " RUN a JSON array", script + [memsim, array], "not a memsim-validate run")
        c.expect_error(name + " RUN a microbench document", script + [memsim, microbench], "not a memsim-validate run")
        c.expect_error(name + " RUN of another schema", script + [memsim, other_schema], "not a memsim-validate run")
        c.expect_error(name + " RUN with a broken record", script + [memsim, broken_run], "record 0")
    c.expect_error("read_back no DRAM counts", rb + [memsim, no_ncu_run], "no configuration with DRAM counts")
    c.expect_error("read_back no DRAM counts, bad memsim", rb + ["/bin/false", no_ncu_run], "failed (status 1)")
    c.expect_error("read_back small matrices only", rb + [memsim, small_run], "larger than the L2")
    c.expect_ok("read_back good run", rb + [memsim, good_run], ["| f32 | 1 |", "| copy | f32 | 8192x8192 | 16x16 |"])
    c.expect_error("instruction_diagnostic no judged configuration", idiag + [memsim, no_ncu_run],
                   "no judged configuration")
    c.expect_ok("instruction_diagnostic good run (no 32x8 block)", idiag + [memsim, good_run],
                ["| every block | measured (ncu) | 1 |"])

    c.expect_error("l1_wavefronts too many arguments", l1 + [memsim, "64x64", l1_good, "run", "more"], "usage:")
    # recorded_runs.py replays every committed run (minutes): its argument and binary checks only.
    rr = [py, os.path.join(LAB, "studies", "l1_wavefronts", "recorded_runs.py")]
    c.expect_error("recorded_runs no arguments", rr, "usage:")
    c.expect_error("recorded_runs an unknown option", rr + [memsim, "--bogus"], "unknown option --bogus")
    c.expect_error("recorded_runs too many arguments", rr + [memsim, "--list", "more"], "usage:")
    c.expect_ok("recorded_runs --help", rr + ["--help"], ["MEMSIM_BINARY"])
    c.expect_error("recorded_runs memsim missing", rr + [missing], "no such file")
    c.expect_error("recorded_runs memsim /bin/false", rr + ["/bin/false"], "failed (status 1)")
    c.expect_error("recorded_runs memsim /bin/echo", rr + ["/bin/echo"], "printed no JSON report")
    merge = [py, os.path.join(LAB, "studies", "store_merge", "store_merge.py")]
    c.expect_error("store_merge an argument", merge + ["x"], "usage:")
    c.expect_ok("store_merge the committed runs", merge, ["| kernel | dtype |", "| copy_shared | f32 | 4x16 |"])
    judge = [py, os.path.join(LAB, "heldout", "judge.py")]
    c.expect_error("judge a run that is missing", judge + [missing], "no such file")
    c.expect_error("judge a run that is not JSON", judge + [text], "is not JSON")
    # The held-out runs are committed gzipped: a .gz that is not gzip, or is cut short, is one line too.
    c.expect_error("judge a .json.gz that is not gzip", judge + [c.write("plain.json.gz", "{}\n")],
                   "is not a whole gzip file")
    whole = gzip.compress(json.dumps({"records": []}).encode())
    c.expect_error("judge a .json.gz cut short", judge + [c.write("cut.json.gz", whole[:len(whole) // 2])],
                   "is not a whole gzip file")
    c.expect_error("judge memsim missing", judge + [os.path.join(LAB, "heldout", "results", "h100_c",
                                                               "h100_heldoutc_24x4_t24x24.json.gz"),
                                              "--memsim", missing, "--device", "h100"], "no such file")
    by_piece = [py, os.path.join(LAB, "heldout", "naive_by_piece.py")]
    c.expect_error("naive_by_piece memsim missing", by_piece + ["--memsim", missing], "no such file")
    c.expect_error("naive_by_piece a device without runs", by_piece + ["--memsim", memsim, "--device", "gtx280"],
                   "no timed naive runs")
    mb = [py, os.path.join(LAB, "studies", "store_merge", "microbench.py")]
    c.expect_error("store_merge microbench two arguments", mb + ["x", "y"], "usage:")
    c.expect_error("store_merge microbench no results", mb + [c.work], "no such file")
    c.expect_ok("store_merge microbench the committed runs", mb,
                ["| run | blocks an SM |", "| self 2 pieces, 1 apart, 2 warps a block | 32 | 100% | 100% |"])
    terms = [py, os.path.join(LAB, "studies", "split_lines", "terms.py")]
    c.expect_error("split_lines terms no run", terms + [c.work], "no such file")
    sl = os.path.join(c.work, "split_lines_run")
    os.makedirs(sl, exist_ok=True)
    with open(os.path.join(sl, "split_lines.json"), "w") as f:
        json.dump({"device": "NVIDIA H100", "date": "now", "all_checks_passed": True, "runs": [{"name": "x"}]}, f)
    c.expect_error("split_lines terms no Nsight Compute CSV", terms + [sl], "no such file")
    with open(os.path.join(sl, "split_lines.ncu.csv"), "w") as f:
        f.write('"ID","Metric Name","Metric Value"\n')
    c.expect_error("split_lines terms runs without launches", terms + [sl], "1 runs but 0 Nsight Compute launches")
    c.expect_error("l1_wavefronts CSV not a CSV", l1 + [memsim, "64x64", text], "no Nsight Compute header")
    c.expect_error("l1_wavefronts CSV header only", l1 + [memsim, "64x64", l1_header], "has no launches")
    c.expect_error("l1_wavefronts CSV without the metrics", l1 + [memsim, "64x64", l1_no_metric], "has no " + TOTAL)
    c.expect_error("l1_wavefronts CSV of other kernels", l1 + [memsim, "64x64", l1_other], "no suite kernel")
    c.expect_error("l1_wavefronts CSV value no number", l1 + [memsim, "64x64", l1_nan], "is no number")
    c.expect_error("l1_wavefronts CSV raw page", l1 + [memsim, "64x64", l1_raw], "has no column Metric Name")
    c.expect_error("l1_wavefronts MATRIX abc", l1 + [memsim, "abc", l1_good], "invalid --matrix 'abc'")
    c.expect_error("l1_wavefronts MATRIX not the CSV's", l1 + [memsim, "128x128", l1_good], "does not match the CSV")
    c.expect_ok("l1_wavefronts good CSV", l1 + [memsim, "64x64", l1_good, "a test run"],
                ["Run: a test run.", "| copy | f32 | 32x8 | 1100 | 8 | 137.500 |"])

    c.expect_error("add_instructions no arguments", add, "usage:")
    c.expect_error("add_instructions one argument", add + [microbench], "usage:")
    c.expect_error("add_instructions an unknown option", add + ["--bogus", issue_good], "unknown option --bogus")
    c.expect_ok("add_instructions --help", add + ["--help"], ["smsp__inst_executed.sum"])
    c.expect_error("add_instructions MICROBENCH missing", add + [missing, issue_good], "no such file")
    c.expect_error("add_instructions MICROBENCH a directory", add + [directory, issue_good], "is a directory")
    c.expect_error("add_instructions MICROBENCH not JSON", add + [text, issue_good], "is not JSON")
    c.expect_error("add_instructions MICROBENCH a JSON array", add + [array, issue_good],
                   "not a memsim-microbench document")
    c.expect_error("add_instructions MICROBENCH a validation run", add + [good_run, issue_good],
                   "not a memsim-microbench document")
    c.expect_error("add_instructions MICROBENCH without issue runs", add + [no_issue, issue_good], "no issue runs")
    c.expect_error("add_instructions MICROBENCH bad rounds", add + [bad_rounds, issue_good], "params.rounds")
    c.expect_error("add_instructions NCU missing", add + [microbench, missing], "no such file")
    c.expect_error("add_instructions NCU a directory", add + [microbench, directory], "is a directory")
    c.expect_error("add_instructions NCU binary", add + [microbench, garbage], "not a")
    c.expect_error("add_instructions NCU without counts", add + [microbench, issue_none], "has no smsp__inst_executed")
    c.expect_error("add_instructions NCU value no number", add + [microbench, issue_nan], "is no number")
    c.expect_error("add_instructions NCU lacking a run's count", add + [microbench, issue_partial],
                   "no ncu count for issue_tile rounds=0")
    c.expect_ok("add_instructions good input", add + [microbench, issue_good], ['"instructions":3801088.0'])

    by_kernel = [py, os.path.join(LAB, "calibration", "holdout_by_kernel.py")]
    rows = (("copy", "8192x8192", 0, 100.0, 110.0, "+10.0%", "DRAM bandwidth"),
            ("padded", "8192x8192", 1, 100.0, 150.0, "+50.0%", "instruction issue"),
            ("copy", "2048x2048", 0, 10.0, 9.0, "-10.0%", "DRAM bandwidth"))
    report = c.write("holdout.txt", "Hold-out validation of profile h100 (calibrated) against measured suite times\n" +
                     "".join("  %-12s %-10s f32  32x8   32x32  %-4d %10.1f %10.1f %8s  %s\n" % r for r in rows))
    c.expect_error("holdout_by_kernel no report", by_kernel, "no report")
    c.expect_error("holdout_by_kernel an unknown option", by_kernel + ["--bogus", report], "unknown option --bogus")
    c.expect_error("holdout_by_kernel a missing file", by_kernel + [missing], "cannot be read")
    c.expect_error("holdout_by_kernel a directory", by_kernel + [directory], "cannot be read")
    c.expect_error("holdout_by_kernel binary garbage", by_kernel + [garbage], "cannot be read")
    c.expect_error("holdout_by_kernel no report rows", by_kernel + [text], "no rows")
    c.expect_ok("holdout_by_kernel good input", by_kernel + [report], ["copy            10.0% (  +0.0%) n=2",
                                                                        "staged          50.0% ( +50.0%) n=1"])
    c.expect_ok("holdout_by_kernel --judged", by_kernel + ["--judged", report], ["copy            10.0% ( +10.0%) n=1"])

    # The out-of-order latency table (calibration/order_latency_table.py): a copy at 2 blocks an SM, 200 us, and
    # its reads out of order, 230 us: +15.0%; files of one device merge.
    table = [py, os.path.join(LAB, "calibration", "order_latency_table.py")]
    def chunk_run(side, cols, median):
        return {"bench": "chunks_" + side, "params": {"cols": cols, "cap_blocks_per_sm": 2}, "time_us": {"median": median}}
    order_copy = c.write("order_copy.json", json.dumps({"device": {"name": "GPU X"}, "runs": [
        {"bench": "empty", "params": {}, "time_us": {"median": 3.0}}, chunk_run("scatter", 1, 200.0)]}))
    order_moved = c.write("order_moved.json", json.dumps({"device": {"name": "GPU X"},
                                                          "runs": [chunk_run("gather", 1024, 230.0)]}))
    order_bad_time = c.write("order_bad_time.json", json.dumps({"device": {"name": "GPU X"},
                                                             "runs": [chunk_run("scatter", 1, "fast")]}))
    order_no_copy = c.write("order_no_copy.json", json.dumps({"runs": [chunk_run("gather", 1024, 230.0)]}))
    c.expect_error("order_latency_table no file", table, "usage:")
    c.expect_error("order_latency_table a missing file", table + [missing], "not a memsim-microbench run")
    c.expect_error("order_latency_table a directory", table + [directory], "not a memsim-microbench run")
    c.expect_error("order_latency_table binary garbage", table + [garbage], "not a memsim-microbench run")
    c.expect_error("order_latency_table a JSON array", table + [array], "not a memsim-microbench run")
    c.expect_error("order_latency_table a time not a number", table + [order_bad_time], "not a positive number")
    c.expect_error("order_latency_table no copy", table + [order_no_copy], "no plain copy")
    c.expect_ok("order_latency_table good input", table + [order_copy, order_moved],
                ["| 16 B, 128 B, 2 | 200.0 µs | +15.0% |  |  |"])

    # The narrow-lanes table (calibration/narrow_lanes_table.py): whole sectors from 4-byte lanes (4 rows) at
    # 200 us, 16-byte pieces (8 rows) at 300 us, 4096 a side (2,097,152 sectors); the pieces' L2 sector writes
    # 1.5 a sector: merged (2 - 1.5) / (2 - 1) = 0.50, 1.50 times the whole sectors' time.
    narrow = [py, os.path.join(LAB, "calibration", "narrow_lanes_table.py")]
    def strided_run(rows, median):
        return {"bench": "strided_store", "occupancy_blocks_per_sm": 8, "time_us": {"median": median},
                "params": {"elem_bytes": 4, "rows_per_request": rows, "side": 4096, "strided": "store"}}
    narrow_run = c.write("narrow.json", json.dumps({"device": {"name": "GPU X"}, "date": "today", "runs": [
        {"bench": "empty", "params": {}, "time_us": {"median": 3.0}}, strided_run(4, 200.0), strided_run(8, 300.0)]}))
    def strided_ncu(launch, rows, sectors):
        return ncu_row(launch, "void strided<unsigned int, %d, 1, 0>(const T1 *, T1 *, int)" % rows,
                       "lts__t_sectors_srcunit_tex_op_write.sum", sectors)
    narrow_ncu = c.write("narrow.ncu.csv", "\n".join([NCU_HEADER, strided_ncu(0, 4, "2,097,152"),
                                                      strided_ncu(1, 8, "3,145,728")]) + "\n")
    narrow_ncu_other = c.write("narrow_other.ncu.csv", "\n".join([NCU_HEADER, strided_ncu(0, 4, "2,097,152"),
                                                                  strided_ncu(1, 16, "3,145,728")]) + "\n")
    c.expect_error("narrow_lanes_table no file", narrow, "usage:")
    c.expect_error("narrow_lanes_table a missing run", narrow + [missing, narrow_ncu], "not a memsim-microbench run")
    c.expect_error("narrow_lanes_table binary garbage", narrow + [garbage, narrow_ncu], "not a memsim-microbench run")
    c.expect_error("narrow_lanes_table a missing csv", narrow + [narrow_run, missing],
                   "no such file (expected a memsim-microbench Nsight Compute pass (--csv))")
    c.expect_error("narrow_lanes_table a text file as csv", narrow + [narrow_run, text], "has no Nsight Compute header")
    c.expect_error("narrow_lanes_table another run's kernels", narrow + [narrow_run, narrow_ncu_other],
                   "the run is void strided<unsigned int, 8, 1, 0>")
    c.expect_ok("narrow_lanes_table good input", narrow + [narrow_run, narrow_ncu],
                ["4 B   16 B     300.0     200.0         1.50    0.50"])

    # The store-order table (calibration/store_order_table.py): strided 4-byte lanes, blocks down the rows: whole
    # sectors 200 us, 16-byte pieces 300 (100 beyond the floor); along them 190 and 240 (50): ratio 0.50. A staged
    # copy's stores on tiles of 24 2-byte elements: 120 us along, 180 down, 0.67; with the ncu pass, 4096 a side
    # (1,048,576 sectors of output) and 1,572,864 L2 sector writes along, 2,097,152 down: 1.50 and 2.00 a sector;
    # the strided runs' 4,194,304 writes are 2.00 a sector of their 2,097,152, none merged.
    order = [py, os.path.join(LAB, "calibration", "store_order_table.py")]
    def order_run(rows, median, across):
        params = {"elem_bytes": 4, "rows_per_request": rows, "side": 4096, "strided": "store"}
        if across:
            params["blocks"] = "across"
        return {"bench": "strided_store", "time_us": {"median": median}, "params": params}
    def tile_run(median, order_name):
        return {"bench": "tile_stores", "time_us": {"median": median},
                "params": {"elem_bytes": 2, "tile": 24, "block": "12x4", "side": 4096, "blocks": order_name}}
    order_doc = {"device": {"name": "GPU X"}, "runs": [tile_run(120.0, "across"), tile_run(180.0, "down"),
                                                       order_run(4, 200.0, False), order_run(8, 300.0, False),
                                                       order_run(4, 190.0, True), order_run(8, 240.0, True)]}
    order_json = c.write("order.json", json.dumps(order_doc))
    order_doc["runs"] = order_doc["runs"][:5]
    order_short = c.write("order_short.json", json.dumps(order_doc))
    order_ncu = c.write("order.ncu.csv", "\n".join([
        NCU_HEADER,
        ncu_row(0, "void tile_stores<unsigned short, 24, 12, 4, 0>(const T1 *, T1 *, int)",
                "lts__t_sectors_srcunit_tex_op_write.sum", "1,572,864"),
        ncu_row(1, "void tile_stores<unsigned short, 24, 12, 4, 1>(const T1 *, T1 *, int)",
                "lts__t_sectors_srcunit_tex_op_write.sum", "2,097,152")]
        + [ncu_row(2 + i, "void strided<unsigned int, %d, 1, 0, %d>(const T1 *, T1 *, int)" % (rows, across),
                   "lts__t_sectors_srcunit_tex_op_write.sum", "4,194,304")
           for i, (rows, across) in enumerate([(4, 0), (8, 0), (4, 1), (8, 1)])]) + "\n")
    c.expect_error("store_order_table no file", order, "usage:")
    c.expect_error("store_order_table --device alone", order + [missing, "--device", "h100"], "--device goes with --memsim")
    c.expect_error("store_order_table --memsim without --device", order + [missing, "--memsim", "memsim"],
                   "--memsim takes a binary")
    c.expect_error("store_order_table a missing run", order + [missing], "not a memsim-microbench run")
    c.expect_error("store_order_table a run missing", order + [order_short], "a run is missing")
    c.expect_error("store_order_table another run's kernels", order + [order_short, order_ncu],
                   "4 strided kernels")
    c.expect_ok("store_order_table good input", order + [order_json],
                ["| 2 B | 24 (48 B) | 12x4 | 120.0 | 180.0 | 0.67 |  |",
                 "| 4 B | 16 B | as fit | 300.0 | 200.0 | 240.0 | 190.0 | 100.0 / 50.0 | 0.50 |  |"])
    c.expect_ok("store_order_table with ncu", order + [order_json, order_ncu],
                ["| 2 B | 24 (48 B) | 12x4 | 120.0 | 180.0 | 0.67 | 1.50 / 2.00 |",
                 "| 4 B | 16 B | as fit | 300.0 | 200.0 | 240.0 | 190.0 | 100.0 / 50.0 | 0.50 | 0.00 / 0.00 |"])

    # The same measured run given to a calibration run (calibration/add_l2_write_sectors.py): its 8-row run
    # (16-byte pieces) gets the 3,145,728 sector writes, the whole-sector run its 2,097,152.
    add_writes = [py, os.path.join(LAB, "calibration", "add_l2_write_sectors.py")]
    c.expect_error("add_l2_write_sectors no files", add_writes, "usage:")
    c.expect_error("add_l2_write_sectors a missing run", add_writes + [missing, narrow_run, narrow_ncu],
                   "not a memsim-microbench run")
    c.expect_error("add_l2_write_sectors a JSON array", add_writes + [array, narrow_run, narrow_ncu],
                   "not a memsim-microbench run")
    c.expect_error("add_l2_write_sectors a text file as csv", add_writes + [narrow_run, narrow_run, text],
                   "has no Nsight Compute header")
    c.expect_error("add_l2_write_sectors another run's kernels", add_writes + [narrow_run, narrow_run, narrow_ncu_other],
                   "the run is void strided<unsigned int, 8, 1, 0>")
    c.expect_ok("add_l2_write_sectors good input", add_writes + [narrow_run, narrow_run, narrow_ncu],
                ['"l2_write_sectors_measured": 3145728.0', '"l2_write_sectors_measured": 2097152.0'])

    # The drain table (calibration/drain_merges_table.py): 2^26 2-byte elements are 4,194,304 sectors; a drain whose
    # L2 writes are 5,242,880 merged 2 - 1.25 = 0.75 of its sectors' pieces.
    drain = [py, os.path.join(LAB, "calibration", "drain_merges_table.py")]
    drain_run = c.write("drain.json", json.dumps({"device": {"name": "GPU X"}, "date": "today", "runs": [
        {"bench": "drain_pieces", "occupancy_blocks_per_sm": 16, "time_us": {"median": 150.0},
         "counts": {"dram_write_bytes": 2 ** 27},
         "params": {"elem_bytes": 2, "stores_a_warp": 8, "warps_a_block": 4, "shared": True, "cap_blocks_per_sm": 0}}]}))
    drain_ncu = c.write("drain.ncu.csv", "\n".join([NCU_HEADER, ncu_row(
        0, "void drain_pieces<unsigned short, 8, 1>(const T1 *, T1 *)", "lts__t_sectors_srcunit_tex_op_write.sum",
        "5,242,880")]) + "\n")
    c.expect_error("drain_merges_table no file", drain, "usage:")
    c.expect_error("drain_merges_table a missing run", drain + [missing, drain_ncu], "not a memsim-microbench run")
    c.expect_error("drain_merges_table the narrow lanes' csv", drain + [drain_run, narrow_ncu], "0 drain_pieces kernels")
    c.expect_ok("drain_merges_table good input", drain + [drain_run, drain_ncu],
                [" 2 B       8      4         16  shared       150.0    0.75"])

    # The L1's merged pieces in a held-out set (heldout/merged_pieces.py): an output of 2,097,152 sectors whose
    # stores write 4,194,304 (two pieces each) and reach the L2 as 3,145,728: merged 0.50.
    merged = [py, os.path.join(LAB, "heldout", "merged_pieces.py")]
    rec = record("naive", matrix=(4096, 4096), block=(8, 32), metrics={
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": {"predicted": 4194304, "measured": 4194304},
        "lts__t_sectors_srcunit_tex_op_write.sum": {"predicted": None, "measured": 3145728}})
    rec["config"]["matrix_bytes"] = 4096 * 4096 * 4
    rec["config"]["tile"] = {"x": 32, "y": 32}
    merged_dir = os.path.join(c.work, "merged_ncu")
    os.makedirs(merged_dir, exist_ok=True)
    c.write(os.path.join("merged_ncu", "run.json"), json.dumps(run_doc([rec])))
    empty_dir = os.path.join(c.work, "merged_empty")
    os.makedirs(empty_dir, exist_ok=True)
    c.expect_error("merged_pieces a directory without runs", merged + [empty_dir], "no run files")
    c.expect_error("merged_pieces --timed alone", merged + [merged_dir, "--timed", merged_dir], "go together")
    c.expect_ok("merged_pieces good input", merged + [merged_dir], ["pieces a sector  2.00  merged  0.50"])


def check_shell_scripts(c):
    bash = shutil.which("bash") or "/bin/bash"
    fakebin = os.path.join(c.work, "fakebin")
    os.makedirs(fakebin, exist_ok=True)
    marker = c.path("tool_ran.log")
    if os.path.exists(marker):
        os.remove(marker)
    for tool in ("cmake", "ncu", "ninja", "nvcc", "compute-sanitizer"):
        c.write(os.path.join("fakebin", tool), MARKER_TOOL % marker, 0o755)
    c.write(os.path.join("fakebin", "nvidia-smi"), NO_GPU, 0o755)
    env = dict(os.environ, PATH=fakebin + os.pathsep + os.environ.get("PATH", ""),
               MEMSIM_BUILD_DIR=c.path("build-gpu"), MEMSIM_GIT_REVISION="test")
    for k in ("MEMSIM_STAGES", "MEMSIM_VALIDATE", "NCU", "COMPUTE_SANITIZER", "MEMSIM_CMAKE_ARGS"):
        env.pop(k, None)
    out_dir = c.path("suite_out")
    suite = [bash, os.path.join(c.validate, "run_suite.sh")]
    calib = [bash, os.path.join(LAB, "calibration", "run_calibration.sh")]
    counters = [bash, os.path.join(LAB, "studies", "l1_wavefronts", "ncu_counters.sh")]

    c.expect_ok("run_suite.sh --help", suite + ["--help"], ["MEMSIM_STAGES", "OUT_DIR"], env)
    c.expect_ok("run_suite.sh -h", suite + ["-h"], ["MEMSIM_STAGES"], env)
    c.expect_error("run_suite.sh an unknown option", suite + ["--bogus"], "unknown option --bogus", env)
    c.expect_error("run_suite.sh two arguments", suite + [out_dir, "more"], "one OUT_DIR at most", env)
    for value, expected in (("", "MEMSIM_STAGES is empty"), ("  ", "MEMSIM_STAGES is empty"),
                            ("build siute", "unknown stage 'siute'"), ("build,suite", "unknown stage 'build,suite'"),
                            ("*", "unknown stage '*'")):
        c.expect_error("run_suite.sh MEMSIM_STAGES=%r" % value, suite + [out_dir], expected,
                       dict(env, MEMSIM_STAGES=value))
    c.expect_error("run_suite.sh no GPU, every stage", suite + [out_dir], "no GPU", env)
    c.expect_error("run_suite.sh no GPU, MEMSIM_STAGES=build suite", suite + [out_dir], "(suite)",
                   dict(env, MEMSIM_STAGES="build suite"))
    if os.path.exists(out_dir):
        c.failures.append("run_suite.sh created OUT_DIR %s while refusing its input" % out_dir)

    calib_out = c.path("calibration_out")
    c.expect_ok("run_calibration.sh --help", calib + ["--help"], ["OUT_DIR"], env)
    c.expect_error("run_calibration.sh no arguments", calib, "usage:", env)
    c.expect_error("run_calibration.sh an empty OUT_DIR", calib + [""], "OUT_DIR is empty", env)
    c.expect_error("run_calibration.sh an unknown option", calib + ["--bogus"], "unknown option --bogus", env)
    c.expect_error("run_calibration.sh two arguments", calib + [calib_out, "more"], "usage:", env)
    c.expect_error("run_calibration.sh no GPU", calib + [calib_out], "no GPU", env)
    if os.path.exists(calib_out):
        c.failures.append("run_calibration.sh created OUT_DIR %s while refusing its input" % calib_out)

    # validate/run_peers.sh and scripts/install-cutlass.sh: refusals before anything is built, fetched or written.
    peers = [bash, os.path.join(c.validate, "run_peers.sh")]
    peers_out = c.path("peers_out")
    c.expect_ok("run_peers.sh --help", peers + ["--help"], ["OUT_DIR", "CuTe"], env)
    c.expect_error("run_peers.sh no arguments", peers, "no OUT_DIR", env)
    c.expect_error("run_peers.sh an unknown option", peers + ["--bogus"], "unknown option --bogus", env)
    c.expect_error("run_peers.sh two arguments", peers + [peers_out, "more"], "one OUT_DIR only", env)
    c.expect_error("run_peers.sh no GPU", peers + [peers_out], "no GPU", env)
    if os.path.exists(peers_out):
        c.failures.append("run_peers.sh created OUT_DIR %s while refusing its input" % peers_out)
    cutlass = [bash, os.path.join(os.path.dirname(c.validate), "scripts", "install-cutlass.sh")]
    c.expect_ok("install-cutlass.sh --help", cutlass + ["--help"], ["DEST", "4.2.0.0"], env)
    c.expect_error("install-cutlass.sh no arguments", cutlass, "no DEST", env)
    c.expect_error("install-cutlass.sh an unknown option", cutlass + ["--bogus"], "unknown option --bogus", env)
    c.expect_error("install-cutlass.sh two arguments", cutlass + [peers_out, "more"], "one DEST only", env)

    # scripts/calibrate_gpu.sh: every refusal before anything is built, measured or written.
    gpu = [bash, os.path.join(os.path.dirname(c.validate), "scripts", "calibrate_gpu.sh")]
    root = os.path.dirname(c.validate)
    new_name = "scripts_test_no_such_gpu"
    c.expect_ok("calibrate_gpu.sh --help", gpu + ["--help"], ["NAME", "--from", "--base"], env)
    c.expect_error("calibrate_gpu.sh no arguments", gpu, "no NAME", env)
    c.expect_error("calibrate_gpu.sh an empty NAME", gpu + [""], "NAME is empty", env)
    for bad in ("H200", "h200.json", "../h200", "_h200", "h 200", "h200-sxm"):
        c.expect_error("calibrate_gpu.sh NAME %r" % bad, gpu + [bad], "bad NAME", env)
    c.expect_error("calibrate_gpu.sh two NAMEs", gpu + ["h200", "h300"], "one NAME only", env)
    c.expect_error("calibrate_gpu.sh an unknown option", gpu + [new_name, "--bogus"], "unknown option --bogus", env)
    c.expect_error("calibrate_gpu.sh --base without a value", gpu + [new_name, "--base"], "needs a value", env)
    c.expect_error("calibrate_gpu.sh --base empty", gpu + [new_name, "--base", ""], "--base is empty", env)
    c.expect_error("calibrate_gpu.sh --base unknown", gpu + [new_name, "--base", "no_such_gpu"],
                   "no profile of that name", env)
    c.expect_error("calibrate_gpu.sh --base a missing file", gpu + [new_name, "--base", c.path("none.json")],
                   "no such profile file", env)
    c.expect_error("calibrate_gpu.sh --from a missing file", gpu + [new_name, "--from", c.path("none.json")],
                   "no such file", env)
    c.expect_error("calibrate_gpu.sh --from a directory", gpu + [new_name, "--from", c.work], "not a file", env)
    c.expect_error("calibrate_gpu.sh no GPU", gpu + [new_name], "no GPU", env)
    c.expect_error("calibrate_gpu.sh no GPU, an existing profile", gpu + ["h100"], "no GPU", env)
    # A GPU (an nvidia-smi that succeeds) without the tools: only this machine's system directories besides.
    gpubin = os.path.join(c.work, "gpubin")
    os.makedirs(gpubin, exist_ok=True)
    c.write(os.path.join("gpubin", "nvidia-smi"), "#!/bin/sh\necho 'GPU 0: fake'\n", 0o755)
    gpu_env = dict(env, PATH=gpubin + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    c.expect_error("calibrate_gpu.sh no ncu", gpu + [new_name], "no Nsight Compute",
                   dict(gpu_env, NCU=c.path("no_such_file")))
    c.write(os.path.join("gpubin", "ncu"), MARKER_TOOL % marker, 0o755)
    c.expect_error("calibrate_gpu.sh no nvcc", gpu + [new_name], "no nvcc",
                   dict(gpu_env, CUDACXX=c.path("no_such_file")))
    for written in (os.path.join(root, "model", "devices", new_name + ".json"),
                    os.path.join(root, "lab", "calibration", "results", new_name + "_microbench.json"),
                    os.path.join(root, "lab", "calibration", "results", new_name + "_calibration_report.txt")):
        if os.path.exists(written):
            c.failures.append("calibrate_gpu.sh wrote %s while refusing its input" % written)

    fake_validate = c.write("memsim-validate", "#!/bin/sh\nexit 97\n", 0o755)
    csv_out = c.path("counters.csv")
    c.expect_ok("ncu_counters.sh --help", counters + ["--help"], ["OUT.csv METRICS"], env)
    c.expect_error("ncu_counters.sh no arguments", counters, "usage:", env)
    c.expect_error("ncu_counters.sh one argument", counters + [csv_out], "usage:", env)
    c.expect_error("ncu_counters.sh an option as OUT.csv", counters + ["--bogus", "a.sum"], "OUT.csv must be", env)
    c.expect_error("ncu_counters.sh an option as METRICS", counters + [csv_out, "--kernels", "all"], "METRICS must",
                   env)
    c.expect_error("ncu_counters.sh OUT.csv a directory", counters + [c.work, "a.sum"], "is a directory", env)
    c.expect_error("ncu_counters.sh OUT.csv in no directory", counters + [c.path("nodir/x.csv"), "a.sum"],
                   "no directory", env)
    c.expect_error("ncu_counters.sh no memsim-validate", counters + [csv_out, "a.sum"], "no memsim-validate",
                   dict(env, MEMSIM_VALIDATE=c.path("no_such_file")))
    c.expect_error("ncu_counters.sh no ncu", counters + [csv_out, "a.sum"], "no Nsight Compute",
                   dict(env, MEMSIM_VALIDATE=fake_validate, NCU=c.path("no_such_file")))
    c.expect_error("ncu_counters.sh no GPU", counters + [csv_out, "a.sum", "--kernels", "all"], "no GPU",
                   dict(env, MEMSIM_VALIDATE=fake_validate))
    if os.path.exists(marker):
        with open(marker) as f:
            c.failures.append("a build or profiling tool ran while the scripts refused their input:\n" + f.read())


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: check_scripts.py VALIDATE_DIR WORK_DIR\n")
        return 2
    validate, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    c = Checker(validate, work)
    check_python_scripts(c)
    check_shell_scripts(c)
    for f in c.failures:
        print("FAILED " + f)
    print("%d checks, %d failed" % (c.count, len(c.failures)))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
