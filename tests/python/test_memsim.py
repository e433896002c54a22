"""memsim's Python module against its command line: the same JSON for the same options, the same one-line
errors (as memsim.Error), sweeps of one or many, the lists, the stubs; the replay leaves the GIL to others."""
import ast
import json
import os
import subprocess
import threading
import time

import memsim
from harness import Skip, main  # noqa: F401

MEMSIM = os.environ["MEMSIM_BIN"]
SHORTCUTS = ("time_us", "effective_bandwidth_gbs", "fraction_of_copy", "bottleneck", "bottleneck_share",
             "instructions", "instructions_basis", "occupancy")


def cli(*args):
    out = subprocess.run([MEMSIM, *args, "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_error(*args):
    out = subprocess.run([MEMSIM, *args], capture_output=True, text=True)
    assert out.returncode == 2, out
    return out.stderr.strip().removeprefix("memsim: ")


def test_predict_is_the_command_lines_json():
    got = memsim.predict(kernel="coalesced", block=(32, 8), matrix=(1024, 512), dtype="f64", device="h200", pad=0,
                         no_compile=True)
    want = cli("--kernel", "coalesced", "--block", "32x8", "--matrix", "1024x512", "--dtype", "f64", "--device",
               "h200", "--pad", "0", "--no-compile")
    for key in SHORTCUTS:
        assert got.pop(key) == want["prediction"][key], key
    assert list(got) == list(want) and got == want


def test_kernel_file_is_the_command_lines_json():
    # examples/float2_padded.hpp: a float2 padded transpose; the report is the command line's.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "float2_padded.hpp")
    got = memsim.kernel_file(path, matrix=(256, 256), no_compile=True)
    want = cli("--kernel-file", path, "--matrix", "256x256", "--no-compile")
    for key in SHORTCUTS:
        assert got.pop(key) == want["prediction"][key], key
    assert got == want
    assert got["config"]["kernel"] == "float2_padded"
    try:
        memsim.kernel_file(path + ".missing")
    except memsim.Error as e:
        assert str(e) == cli_error("--kernel-file", path + ".missing"), e
    else:
        raise AssertionError("a missing kernel file was accepted")
    # Defines reach the command line as --define NAME=VALUE (a bad name is refused before anything compiles).
    try:
        memsim.kernel_file(path, {"1X": 2})
    except memsim.Error as e:
        assert str(e) == cli_error("--kernel-file", path, "--define", "1X=2"), e
    else:
        raise AssertionError("a bad define was accepted")


def test_predict_defaults_are_the_command_lines():
    got = memsim.predict(kernel="padded", block=(32, 8))
    assert got["time_us"] == cli("--kernel", "padded", "--block", "32x8")["prediction"]["time_us"]
    assert got["metrics"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0
    assert got["config"]["matrix"] == {"width": 2048, "height": 2048}


def test_errors_are_memsim_error_with_the_command_lines_line():
    cases = [
        (dict(kernel="nope"), ["--kernel", "nope"]),
        (dict(block=(64, 32)), ["--block", "64x32"]),
        (dict(matrix="0x8"), ["--matrix", "0x8"]),
        (dict(device="nodevice"), ["--device", "nodevice"]),
        (dict(regs=0), ["--regs", "0"]),
        (dict(bogus_option=1), ["--bogus-option", "1"]),
    ]
    for kwargs, args in cases:
        try:
            memsim.predict(**kwargs)
        except memsim.Error as e:
            assert isinstance(e, ValueError)
            assert str(e) == cli_error(*args), (str(e), kwargs)
        else:
            raise AssertionError(f"no error for {kwargs}")
    for call in (lambda: memsim.predict(block=(32, 8, 1)), lambda: memsim.predict(format="csv"),
                 lambda: memsim.sweep(block=[(32, 8), "nope"]), lambda: memsim.run("--plot", "banks")):
        try:
            call()
        except memsim.Error:
            pass
        else:
            raise AssertionError("no error")


def test_sweep_is_the_command_lines_rows():
    blocks = [(32, 8), (16, 16), (64, 32), (8, 32)]
    doc = memsim.sweep(kernel=["naive", "padded"], block=blocks, dtype=["f32", "f16"], refused=True)
    want = cli("--kernel", "naive,padded", "--block", "32x8,16x16,64x32,8x32", "--dtype", "f32,f16")
    assert doc == want
    rows = memsim.sweep(kernel=["naive", "padded"], block=blocks, dtype=["f32", "f16"])
    assert rows == want["rows"] and len(rows) == 12 and len(want["refused"]) == 4
    assert [r["rank"] for r in rows] == list(range(1, 13))


def test_sweep_of_one_and_of_all_blocks():
    one = memsim.sweep(kernel="padded", block=(32, 8))
    assert len(one) == 1 and one[0]["time_us"] == memsim.predict(kernel="padded")["time_us"]
    kernels = memsim.sweep(kernel=["naive", "padded"])
    assert sorted(r["kernel"] for r in kernels) == ["naive", "padded"]
    everything = memsim.sweep(kernel="padded", block="all", refused=True)
    assert everything["sweep"]["configurations"] == 16


def test_lists_and_version():
    names = [k["name"] for k in memsim.kernels()]
    assert names == [k["name"] for k in cli("--list-kernels")] and "padded" in names
    assert memsim.devices() == cli("--list-devices")
    assert memsim.__version__ == subprocess.run([MEMSIM, "--version"], capture_output=True,
                                                text=True).stdout.split()[1]


def test_replay_releases_the_gil():
    ticks = []
    done = threading.Event()

    def replay():
        memsim.predict(kernel="naive", matrix=(8192, 8192), exact=True, no_compile=True, threads=1)
        done.set()

    t = threading.Thread(target=replay)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.005)
    t.join()
    took = time.perf_counter() - start
    # With the GIL held for the whole replay, the loop above would not tick until it ended.
    assert took < 0.05 or len(ticks) >= 0.3 * took / 0.005, (took, len(ticks))


def test_stubs_name_every_public_function():
    here = os.path.dirname(memsim.__file__)
    for module, stub in ((memsim, "__init__.pyi"), (memsim.kernel_tuner, "kernel_tuner.pyi")):
        tree = ast.parse(open(os.path.join(here, stub), encoding="utf-8").read())
        stubbed = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        public = {n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                  and getattr(v, "__module__", None) in (module.__name__, "memsim._memsim")}
        assert public <= stubbed, public - stubbed
    assert os.path.exists(os.path.join(here, "py.typed"))


import memsim.kernel_tuner  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(globals()))
