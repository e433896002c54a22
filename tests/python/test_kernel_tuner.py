"""memsim with the real Kernel Tuner (pip kernel-tuner 1.5.0), no GPU: tune_kernel in simulation mode over the
cache memsim writes finds memsim's best configuration; memsim's restrictions drop, inside tune_kernel, what memsim
refuses and what it predicts far from its best, in each of the ways Kernel Tuner calls a restriction; and a cache
that Kernel Tuner itself wrote while tuning a C transpose on the CPU (lang="C", g++) reads back beside memsim's
predictions."""
import itertools
import os
import shutil
import tempfile

import memsim
import memsim.kernel_tuner as mkt
from harness import Skip, main

try:
    import kernel_tuner
    import numpy
except ImportError as e:
    kernel_tuner = None
    WHY = (f"kernel_tuner is not importable here ({e}); scripts/python-venv.sh BUILD_DIR installs kernel-tuner 1.5.0 "
           "into BUILD_DIR/python-venv, which needs PyPI")

WORK = tempfile.mkdtemp(prefix="memsim_kt_")
MATRIX = (4096, 4096)
TUNE = {"block_size_x": [8, 16, 32, 64, 128], "block_size_y": [1, 2, 4, 8, 16, 32]}  # 30 configurations


def tune(cache, **kw):
    results, env = kernel_tuner.tune_kernel("padded", "", MATRIX, [], TUNE, cache=cache, simulation_mode=True,
                                            quiet=True, **kw)
    return [r for r in results if "__error__" not in r], env


def test_kernel_tuner_is_1_5():
    if kernel_tuner is None:
        raise Skip(WHY)
    assert kernel_tuner.__version__ == "1.5.0", kernel_tuner.__version__


def test_simulation_mode_over_memsims_cache_finds_memsims_best():
    path = os.path.join(WORK, "predicted.json")
    pred = mkt.write_cache(path, TUNE, kernel="padded", matrix=MATRIX)
    cache = kernel_tuner.util.read_cache(path, open_cache=False)  # Kernel Tuner's own reader
    assert len(cache["cache"]) == 30 and cache["tune_params_keys"] == list(TUNE)
    valid, env = tune(path, strategy="brute_force")
    assert len(valid) == len(pred.time_us) == 27, len(valid)  # 64x32, 128x16, 128x32: over 1024 threads
    best = min(valid, key=lambda r: r["time"])
    assert {k: best[k] for k in TUNE} == pred.best(), (best, pred.best())
    assert abs(best["time"] * 1000 - pred.best_time_us()) < 1e-9
    assert env["device_name"].startswith("NVIDIA H100") and env["simulation"] is True
    # Another of Kernel Tuner's strategies runs over the same file.
    valid, _ = tune(path, strategy="random_sample", strategy_options={"fraction": 0.5})
    assert valid and all(r["time"] * 1000 >= pred.best_time_us() for r in valid)


def test_restrictions_drop_refused_and_slow_configurations():
    path = os.path.join(WORK, "predicted.json")
    pred = mkt.write_cache(path, TUNE, kernel="padded", matrix=MATRIX)
    keep = mkt.restrictions(TUNE, kernel="padded", matrix=MATRIX, keep_within=1.25)
    within = {k for k, t in pred.time_us.items() if t <= 1.25 * pred.best_time_us()}
    assert 0 < len(within) < 27
    assert keep({"block_size_x": 32, "block_size_y": 8}) is True  # Kernel Tuner's dict call
    assert keep(block_size_x=128, block_size_y=16) is False  # keywords: 2048 threads
    assert keep(128, 32) is False  # positional, in tune_params' order
    # Alone: Kernel Tuner builds the space with it before anything runs.
    valid, _ = tune(path, strategy="brute_force", restrictions=keep)
    assert {(r["block_size_x"], r["block_size_y"]) for r in valid} == within
    # In a list with one of the user's own.
    valid, _ = tune(path, strategy="brute_force", restrictions=[keep, "block_size_x >= 32"])
    assert {(r["block_size_x"], r["block_size_y"]) for r in valid} == {k for k in within if k[0] >= 32}
    # Impossible only.
    valid, _ = tune(path, strategy="brute_force", restrictions=mkt.restrictions(TUNE, matrix=MATRIX))
    assert len(valid) == 27


C_TRANSPOSE = r"""
#include <chrono>
extern "C" float transpose(float* out, const float* in, int w, int h) {
  auto start = std::chrono::steady_clock::now();
  for (int by = 0; by < h; by += block_size_y)
    for (int bx = 0; bx < w; bx += block_size_x)
      for (int y = by; y < by + block_size_y && y < h; ++y)
        for (int x = bx; x < bx + block_size_x && x < w; ++x) out[x * h + y] = in[y * w + x];
  std::chrono::duration<float, std::milli> t = std::chrono::steady_clock::now() - start;
  return t.count();
}
"""


def test_compare_reads_a_cache_kernel_tuner_wrote():
    if shutil.which("g++") is None:
        raise AssertionError("g++ not found: build-essential is one of scripts/install-deps.sh's packages")
    w, h = 512, 256
    src = numpy.random.rand(h * w).astype(numpy.float32)
    args = [numpy.zeros_like(src), src, numpy.int32(w), numpy.int32(h)]
    tune_params = {"block_size_x": [16, 32], "block_size_y": [4, 8]}
    path = os.path.join(WORK, "measured.json")
    kernel_tuner.tune_kernel("transpose", C_TRANSPOSE, (w, h), args, tune_params, lang="C", cache=path,
                             iterations=3, quiet=True)
    records = mkt.compare_cache(path, kernel="padded")
    assert len(records) == 4
    by = {(r["block_size_x"], r["block_size_y"]): r for r in records}
    ok = by[(32, 8)]
    assert ok["measured_us"] > 0 and ok["memsim_refused"] is None
    assert ok["predicted_us"] == memsim.predict(kernel="padded", block=(32, 8), matrix=(w, h))["time_us"]
    assert abs(ok["ratio"] - ok["predicted_us"] / ok["measured_us"]) < 1e-12
    assert all(r["predicted_us"] > 0 for r in records)
    frame = mkt.compare_cache(path, kernel="padded", as_frame=True)
    assert list(frame["block_size_x"]) == [r["block_size_x"] for r in records]


def test_tile_size_is_per_thread_and_tile_x_per_block():
    # Kernel Tuner's convention: a block covers block_size x tile_size elements.
    tune = {"block_size_x": [32, 64], "block_size_y": [4, 8], "tile_size_x": [1, 2], "tile_size_y": [1, 4, 8]}
    pred = mkt.Predictions(tune, kernel="padded", matrix=(1024, 1024))
    assert len(pred.time_us) + len(pred.refused) == 24 and pred.time_us
    for key, t in pred.time_us.items():
        bx, by, tx, ty = key
        assert t == memsim.predict(kernel="padded", block=(bx, by), tile=(bx * tx, by * ty),
                                   matrix=(1024, 1024))["time_us"], key
    keep = mkt.restrictions(tune, kernel="padded", matrix=(1024, 1024))
    assert all(keep(dict(zip(tune, k))) == (k in pred.time_us) for k in itertools.product(*tune.values()))
    # memsim's own tile, named.
    own = mkt.Predictions({"block_size_x": [32], "block_size_y": [8], "TW": [32, 64], "TH": [32, 64]},
                          kernel="padded", matrix=(1024, 1024), names={"tile_x": "TW", "tile_y": "TH"})
    assert own.time_us[(32, 8, 64, 32)] == pred.time_us[(32, 8, 2, 4)]


def test_t4_results_are_kernel_tuners_and_valid():
    import json
    import jsonschema
    from kernel_tuner.file_utils import get_t4_results

    cache_path, t4_path = os.path.join(WORK, "t4_cache.json"), os.path.join(WORK, "t4.json")
    mkt.write_cache(cache_path, TUNE, kernel="padded", matrix=MATRIX)
    mkt.write_t4(t4_path, TUNE, kernel="padded", matrix=MATRIX)
    with open(t4_path, encoding="utf-8") as f:
        ours = json.load(f)
    schema_dir = os.path.join(os.path.dirname(kernel_tuner.__file__), "schema", "T4", "1.0.0")
    with open(os.path.join(schema_dir, "results-schema.json"), encoding="utf-8") as f:
        jsonschema.validate(ours, json.load(f))
    # Kernel Tuner's own T4 writer, on the same configurations as its reader gives them.
    entries = list(kernel_tuner.util.read_cache(cache_path, open_cache=False)["cache"].values())
    theirs = json.loads(json.dumps(get_t4_results([{**e, "framework_time": 0, "strategy_time": 0} for e in entries],
                                                  TUNE), cls=kernel_tuner.util.NpEncoder))
    for r in theirs["results"]:  # Kernel Tuner lists its error object as a measurement too ("", no unit)
        r["measurements"] = [m for m in r["measurements"] if m["name"] != "__error__"]
    for r in ours["results"] + theirs["results"]:
        del r["timestamp"]
    assert ours == theirs
    assert sum(r["invalidity"] == "constraints" for r in ours["results"]) == 3


def test_write_cache_refuses_what_it_cannot_predict():
    try:
        mkt.write_cache(os.path.join(WORK, "x.json"), {**TUNE, "unroll": [1, 2]}, matrix=MATRIX)
    except memsim.Error as e:
        assert "unroll" in str(e)
    else:
        raise AssertionError("no error")


if __name__ == "__main__":
    rc = main(globals())
    shutil.rmtree(WORK, ignore_errors=True)
    raise SystemExit(rc)
