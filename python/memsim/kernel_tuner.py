"""memsim's predictions where Kernel Tuner (pip kernel-tuner) works: restrictions that drop what memsim predicts
impossible or slow before anything compiles, metrics that put memsim's figures beside a tuning run's, a Kernel
Tuner cache file of memsim's predicted space (for ``tune_kernel(..., simulation_mode=True)``) or the same in the
T4 results schema, and a real run's cache compared with memsim's predictions (docs/python.md). Nothing here imports kernel_tuner: the cache layout is
Kernel Tuner 1.5's (kernel_tuner/util.py: process_cache, store_cache, read_cache).

Tunable parameters map onto memsim's launch by name, ``names`` saying which parameter is which part of it. The
defaults follow Kernel Tuner's conventions: block_size_x and block_size_y the block, tile_size_x and tile_size_y
the elements each thread covers along x and y (its grid divisors: memsim's tile is the block times them), dtype
and pad. memsim's own tile (the input elements a block covers, --tile) is the parts tile_x and tile_y, which no
name sets by default (names={"tile_x": "TILE_W", "tile_y": "TILE_H"}). A part with no parameter takes the keyword
argument's value (block, tile, dtype, pad; the command's default when None); parameters memsim does not model (an
unroll factor) do not change its prediction.
"""
import datetime
import itertools
import json
import math

import memsim

DEFAULT_NAMES = {"block_x": "block_size_x", "block_y": "block_size_y", "tile_x": None, "tile_y": None,
                 "thread_tile_x": "tile_size_x", "thread_tile_y": "tile_size_y", "dtype": "dtype", "pad": "pad"}
_ROLES = list(DEFAULT_NAMES)
_MOST_A_SWEEP = 2000  # report/sweep.hpp: kMaxSweepConfigurations


class Predictions:
    """memsim's prediction for every configuration of a Kernel Tuner search space (the cross product of
    ``tune_params``' values over the parameters memsim models), made once by memsim's sweep.

    ``time_us[key]``: the predicted time; ``refused[key]``: why memsim refuses the configuration (a block of more
    than 1024 threads, a shared tile larger than the device allows, a tile the block does not divide); ``rows[key]``:
    the sweep's record. A key is the tuple of the modelled parameters' values in ``roles`` order (``key(params)``).
    ``only``: predict these configurations (dicts of parameter values) instead of the whole cross product."""

    def __init__(self, tune_params, kernel="padded", matrix=None, dtype=None, device=None, block=None, tile=None,
                 pad=None, names=None, only=None, **more):
        self.tune_params = dict(tune_params)
        self.kernel = kernel
        given = {**DEFAULT_NAMES, **(names or {})}
        unknown = set(given) - set(_ROLES)
        if unknown:
            raise memsim.Error(f"names: unknown part {sorted(unknown)[0]!r}; the parts are {', '.join(_ROLES)}")
        # The parts a tunable parameter sets, in a fixed order.
        self.names = {r: given[r] for r in _ROLES if given[r] is not None and given[r] in self.tune_params}
        self.roles = list(self.names)
        for a, b in (("block_x", "block_y"), ("tile_x", "tile_y"), ("thread_tile_x", "thread_tile_y")):
            if (a in self.names) != (b in self.names):
                raise memsim.Error(f"{self.names.get(a, self.names.get(b))} names one side of the "
                                   f"{a[:-2]}; give both ({a}, {b}) or neither (names=...)")
        if "tile_x" in self.names and "thread_tile_x" in self.names:
            raise memsim.Error("names: the tile is set either per block (tile_x, tile_y) or per thread "
                               "(thread_tile_x, thread_tile_y), not both")
        self.time_us, self.refused, self.rows = {}, {}, {}
        fixed = dict(kernel=kernel, matrix=matrix, device=device, **more)
        self.document = None
        # One memsim sweep for each tile, dtype and pad, over the blocks that go with them.
        groups = {}
        for key, (b, t, d, p) in self._launches(block, tile, dtype, pad, only):
            groups.setdefault((t, d, p), {}).setdefault(b, []).append(key)
        for (t, d, p), by_block in groups.items():
            blocks = list(by_block)
            for i in range(0, len(blocks), _MOST_A_SWEEP):
                chunk = blocks[i:i + _MOST_A_SWEEP]
                doc = memsim.sweep(block=_or_none(chunk), tile=t, dtype=d, pad=p, refused=True, **fixed)
                self.document = self.document or doc

                def keys_of(record):
                    b = (record["block"]["x"], record["block"]["y"])
                    return by_block.get(b, by_block.get(None, []))

                for row in doc["rows"]:
                    for key in keys_of(row):
                        self.rows[key] = row
                        self.time_us[key] = row["time_us"]
                for r in doc["refused"]:
                    for key in keys_of(r):
                        self.refused[key] = r["reason"]
        if self.document is None:
            raise memsim.Error("no configuration to predict")
        self.device = self.document["sweep"]["device"]
        m = self.document["sweep"]["matrices"][0]
        self.matrix = (m["width"], m["height"])

    def _launches(self, block, tile, dtype, pad, only):
        """(key, (block, tile, dtype, pad)) for each configuration to predict: the cross product of the modelled
        parameters' values, or those of `only`; a part no parameter sets is the argument given (None: memsim's
        default)."""
        if only is None:
            values = [[_plain(v) for v in self.tune_params[self.names[r]]] for r in self.roles]
            keys = dict.fromkeys(itertools.product(*values))
        else:
            keys = dict.fromkeys(self.key(p) for p in only)
        for key in keys:
            v = dict(zip(self.roles, key))
            b = (v["block_x"], v["block_y"]) if "block_x" in v else _pair(block)
            if "tile_x" in v:
                t = (v["tile_x"], v["tile_y"])
            elif "thread_tile_x" in v:
                bx, by = b if b is not None else (32, 8)  # memsim's default block
                t = (bx * v["thread_tile_x"], by * v["thread_tile_y"])
            else:
                t = _pair(tile)
            yield key, (b, t, v.get("dtype", dtype), v.get("pad", pad))

    def key(self, params):
        """The key of a configuration given as Kernel Tuner's dict of parameter values."""
        return tuple(_plain(params[self.names[r]]) for r in self.roles)

    def best(self):
        """The fastest configuration predicted: {parameter: value} over the modelled parameters."""
        if not self.time_us:
            raise memsim.Error("memsim refuses every configuration of this search space")
        key = min(self.time_us, key=self.time_us.get)  # the first of equals in the order predicted
        return {self.names[r]: v for r, v in zip(self.roles, key)}

    def best_time_us(self):
        return min(self.time_us.values()) if self.time_us else math.inf

    def restriction(self, keep_within=None):
        """A restriction for ``tune_kernel(..., restrictions=...)``: False for what memsim refuses and, with
        keep_within=1.5, for what it predicts more than 1.5 times slower than its best. Kernel Tuner calls a
        restriction with a dict of the parameters, with them as keywords, or with their values in tune_params'
        order (inside a list of restrictions): this one takes all three. A configuration memsim did not predict
        (a value outside tune_params) passes."""
        keys = list(self.tune_params)
        limit = keep_within * self.best_time_us() if keep_within is not None else math.inf
        time_us, refused, key_of = self.time_us, self.refused, self.key

        def memsim_restriction(*values, **named):
            if named:
                params = named
            elif len(values) == 1 and isinstance(values[0], dict):
                params = values[0]
            else:
                params = dict(zip(keys, values))
            try:
                key = key_of(params)
            except KeyError:
                return True
            if key in refused:
                return False
            return time_us.get(key, 0.0) <= limit

        return memsim_restriction

    def metrics(self, prefix="memsim_"):
        """Kernel Tuner metrics (``tune_kernel(..., metrics=...)``): memsim's predicted time in microseconds and
        its effective bandwidth in GB/s beside each measured configuration (NaN where memsim refuses it)."""
        def field(name):
            def metric(p):
                row = self.rows.get(self.key(p))
                return row[name] if row else math.nan
            return metric
        return {prefix + "time_us": field("time_us"), prefix + "GB/s": field("effective_bandwidth_gbs")}


def _or_none(values):
    return None if values == [None] else values


def _pair(size):
    """(X, Y) from (X, Y) or "XxY"; None stays None."""
    try:
        if isinstance(size, str):
            x, _, y = size.partition("x")
            return (int(x), int(y))
        return None if size is None else (int(size[0]), int(size[1]))
    except (ValueError, TypeError, IndexError):
        raise memsim.Error(f"expected (X, Y) or 'XxY', got {size!r}") from None


def _plain(v):
    """A numpy scalar as the Python value it holds (a key must compare equal to memsim's)."""
    return v.item() if hasattr(v, "item") else v


def restrictions(tune_params, kernel="padded", keep_within=None, **memsim_args):
    """``Predictions(tune_params, kernel, **memsim_args).restriction(keep_within)``: for tune_kernel's
    restrictions=, alone or in a list with others."""
    return Predictions(tune_params, kernel, **memsim_args).restriction(keep_within)


def _cache_entries(pred, now):
    """Each configuration of the cross product of pred.tune_params as a Kernel Tuner cache entry: (key, entry)."""
    extra = [k for k in pred.tune_params if k not in pred.names.values()]
    if extra:
        known = ", ".join(n for n in DEFAULT_NAMES.values() if n)
        raise memsim.Error(f"tunable parameter {extra[0]!r} is none memsim models ({known}; names= maps others): "
                           "a simulation needs a time for every configuration")
    keys = list(pred.tune_params)
    for values in itertools.product(*([_plain(v) for v in pred.tune_params[k]] for k in keys)):
        params = dict(zip(keys, values))
        key = pred.key(params)
        row = pred.rows.get(key)
        entry = dict(params)
        if row:
            entry.update({"time": row["time_us"] / 1000, "times": [row["time_us"] / 1000]})
        else:
            entry["__error__"] = "InvalidConfig"
        entry.update({"compile_time": 0, "verification_time": 0, "benchmark_time": 0, "timestamp": now})
        if row:
            entry.update({"memsim_time_us": row["time_us"], "memsim_GB/s": row["effective_bandwidth_gbs"],
                          "memsim_bottleneck": row["bottleneck"], "memsim_basis": row["instructions_basis"]})
        else:
            entry["memsim_refused"] = pred.refused.get(key, "not predicted")
        yield ",".join(str(v) for v in values), entry


def write_cache(path, tune_params, kernel="padded", kernel_name=None, problem_size=None, objective="time",
                **memsim_args):
    """Writes memsim's predictions over ``tune_params`` as a Kernel Tuner cache file (kernel_tuner 1.5's layout,
    as ``tune_kernel(..., cache=path)`` writes it): "time" and "times" in milliseconds, compile, verification and
    benchmark times 0, memsim's figures as memsim_time_us, memsim_GB/s, memsim_bottleneck and memsim_basis, and
    every configuration memsim refuses as Kernel Tuner's InvalidConfig with memsim_refused saying why.
    ``tune_kernel(kernel_name, "", problem_size, [], tune_params, cache=path, simulation_mode=True)`` then
    tunes over it without a GPU. kernel_name defaults to memsim's kernel, problem_size to the matrix (W, H);
    device_name is memsim's device profile. Every parameter of tune_params must be one memsim models (names=).
    Returns the Predictions written (``.best()``: the configuration memsim predicts fastest)."""
    pred = Predictions(tune_params, kernel, **memsim_args)
    header = {
        "device_name": f"{pred.device['name']} (memsim {pred.device['profile']})",
        "kernel_name": kernel_name or kernel,
        "problem_size": list(problem_size) if problem_size is not None else list(pred.matrix),
        "tune_params_keys": list(pred.tune_params),
        "tune_params": {k: [_plain(v) for v in vs] for k, vs in pred.tune_params.items()},
        "objective": [objective],  # a list, as tune_kernel writes it
        "cache": {},
    }
    # Kernel Tuner's own layout: the header without its last "}\n}", one entry a line, then closed.
    text = json.dumps(header, indent="")[:-3]
    for name, entry in _cache_entries(pred, str(datetime.datetime.now(datetime.timezone.utc))):
        text += "\n" + json.dumps({name: entry})[1:-1] + ","
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:-1] + "}\n}")
    return pred


def write_t4(path, tune_params, kernel="padded", objective="time", **memsim_args):
    """Writes memsim's predictions over ``tune_params`` in the community's T4 results schema (1.0.0), as Kernel
    Tuner's store_output_file writes a run's results (kernel_tuner/file_utils.py: get_t4_results): one result a
    configuration with its configuration, times (runtimes: the predicted time in ms; the others 0), invalidity
    ("correct", or "constraints" where memsim refuses it), correctness 1, measurements (time in ms, memsim's
    figures) and objectives. Returns the Predictions written."""
    pred = Predictions(tune_params, kernel, **memsim_args)
    timing = ("compile_time", "verification_time", "benchmark_time", "timestamp", "times", "__error__")
    results = []
    for _, entry in _cache_entries(pred, str(datetime.datetime.now(datetime.timezone.utc))):
        results.append({
            "timestamp": entry["timestamp"],
            "configuration": {k: entry[k] for k in pred.tune_params},
            "times": {"compilation": 0, "benchmark": 0, "framework": 0, "search_algorithm": 0, "validation": 0,
                      "runtimes": entry.get("times", [])},
            "invalidity": "constraints" if "__error__" in entry else "correct",
            "correctness": 1,
            "measurements": [{"name": k, "value": v, "unit": "ms" if k.startswith("time") else ""}
                             for k, v in entry.items() if k not in pred.tune_params and k not in timing],
            "objectives": [objective],
        })
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"results": results, "schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"}}, f)
    return pred


def read_cache(path):
    """A Kernel Tuner cache file as a dict, closed first if its run was cut off (as kernel_tuner's read_cache)."""
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    if text and text[-3:] not in ("}\n}", "}}}"):
        text = text.rstrip(",") + "}\n}"
    return json.loads(text)


def compare_cache(path, kernel="padded", names=None, as_frame=False, **memsim_args):
    """A real tuning run's cache beside memsim's predictions: one record a configuration Kernel Tuner measured,
    with its tunable parameters, measured_us (the cache's "time", ms, in us), predicted_us, ratio
    (predicted / measured; None where memsim refuses) and memsim_refused. The matrix defaults to the cache's
    problem_size when it holds two integers (W, H). as_frame: a pandas DataFrame."""
    cache = read_cache(path)
    size = cache.get("problem_size")
    if memsim_args.get("matrix") is None and isinstance(size, list) and len(size) == 2 and \
            all(isinstance(v, int) for v in size):
        memsim_args["matrix"] = tuple(size)
    measured = [e for e in cache["cache"].values()
                if "__error__" not in e and isinstance(e.get("time"), (int, float))]
    pred = Predictions(cache["tune_params"], kernel, names=names, only=measured, **memsim_args)
    records = []
    for entry in measured:
        params = {k: entry[k] for k in cache["tune_params_keys"]}
        key = pred.key(params)
        measured = entry["time"] * 1000
        predicted = pred.time_us.get(key)
        records.append({**params, "measured_us": measured, "predicted_us": predicted,
                        "ratio": predicted / measured if predicted is not None and measured > 0 else None,
                        "memsim_refused": pred.refused.get(key)})
    return memsim.to_frame(records) if as_frame else records
