#!/usr/bin/env python3
"""Summarises a validate/run_peers.sh run (issue "every peer in the same run"): per cell, cudaMemcpy, the CuTe
transpose and cuBLAS geam (their medians and fractions of cudaMemcpy), then each `best` configuration's round
medians, its fraction of cudaMemcpy (median and worst round), whether it is at or above every peer in every
round, and memsim's prediction against the measured median.

    peers_summary.py RUN.json [--memsim BIN --device NAME]

With --memsim, `best` is predicted again by that memsim for the profile NAME (a run's own predictions use the
profile it was given, h100 unless said).
"""
import argparse
import json
import subprocess


def round_medians(t):
    return t.get("round_medians") or [t["median"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--memsim")
    ap.add_argument("--device")
    a = ap.parse_args()
    if bool(a.memsim) != bool(a.device):
        ap.error("--memsim and --device go together")
    d = json.load(open(a.run))
    print("%s, %s, git %s" % (d["context"]["device"]["name"], d["context"].get("date", "?"), d["context"].get("git_revision", "?")))
    for g in d["groups"]:
        b = g["baselines"]
        memcpy = b["cudaMemcpy_d2d"]["time_us"]["median"]
        peers = {n: b[n]["time_us"] for n in ("cute_transpose", "cublas_geam") if b.get(n, {}).get("time_us")}
        print("%s %s: cudaMemcpy %.1f us; " % (g["dtype"], g["matrix"], memcpy) +
              "; ".join("%s %.1f us (%.3f)" % (n, t["median"], memcpy / t["median"]) for n, t in peers.items()))
        for r in d["records"]:
            c = r["config"]
            if c["kernel"] != "best" or c["dtype"] != g["dtype"] or \
                    "%dx%d" % (c["matrix"]["width"], c["matrix"]["height"]) != g["matrix"]:
                continue
            t = r["measured"]["time_us"]
            rounds = round_medians(t)
            above = all(x <= min(round_medians(p)[i] for p in peers.values()) for i, x in enumerate(rounds)) if peers else True
            block = "%dx%d" % (c["block"]["x"], c["block"]["y"])
            predicted = r["predicted"]["time_us"]
            if a.memsim:
                out = subprocess.run([a.memsim, "--kernel", "best", "--dtype", c["dtype"], "--matrix", g["matrix"],
                                      "--block", block, "--device", a.device, "--format", "json"],
                                     capture_output=True, text=True, check=True).stdout
                predicted = json.loads(out)["prediction"]["time_us"]
            print("    best %s: rounds %s us, %.3f of cudaMemcpy (worst round %.3f), at or above every peer in every "
                  "round: %s; memsim %.1f us (%+.1f%%)"
                  % (block, " / ".join("%.1f" % x for x in rounds), memcpy / t["median"], memcpy / max(rounds),
                     "yes" if above else "no", predicted, 100 * (predicted / t["median"] - 1)))


if __name__ == "__main__":
    main()
