#!/usr/bin/env python3
"""Counts the warp instructions of the suite's compile-time-shape kernels along their paths through the SASS,
and writes the table the cost model's instruction estimate reads for static shapes (codegen/launch_instructions.cpp).

The GPU runs every suite launch whose block, tile and pad are a kernel's defaults with a static shape
(kernels/static_dispatch.hpp): nvcc unrolls its walks and folds their constants, so a warp executes one
straight path of SASS whose length is known at build time. Along each path this script follows:

  inner   a block whose tile lies wholly inside the matrix: the uniform edge test (the first branch with two
          predicates, `@!P0 BRA P1, target`) is taken; every other instruction is counted once, predicated or
          not (a predicated-off instruction is issued all the same);
  exit    the same, leaving at the first predicated EXIT: what a warp executes whose last accesses have no
          active lane (the tall blocks' transposed drain, whose rows past the tile are all off);
  square  diagonal only: its grid-shape branch (`@!P0 BRA` before the edge test, grid_x == grid_y) taken,
          which skips the general form's two divisions;
  edge    a block whose tile reaches past the matrix: the edge test falls through, and so does every branch
          around an access (all lanes active); an upper estimate, not measured.

Along the inner path it also counts the global loads (LDG) and the waits for them: the instructions that read
a register a load in flight writes, where the warp stalls until that load is back (load_waits). The loads a
warp issues between two waits are in flight together; the cost model's latency term charges a round trip per
wait (model/counts.cpp: loads in flight = loads / waits). Fully unrolled, a staged kernel issues every row's
load before its first shared store; a direct one stores each load before the next (a load may not pass a
store that may alias it).

Every path ends at an unpredicated EXIT. Nsight Compute's smsp__inst_executed.sum of the committed suite runs
equals warps x these counts on every configuration (validate/results/suite_*.json; the report this script
prints with --check says so per configuration).

    scripts/sass_instruction_counts.py --nvcc nvcc --cuobjdump cuobjdump --out codegen/sass_table.inc
    scripts/sass_instruction_counts.py --sass dump.sass --check validate/results/suite_f32.json ...
    scripts/sass_instruction_counts.py --nvcc nvcc --out /tmp/t.inc --compare codegen/sass_table.inc

With --nvcc it compiles the instantiations the GPU build makes (sm_90, the validation build's flags) in a
temporary directory and reads them back with cuobjdump -sass; with --sass it reads such a dump.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))

DTYPES = [("f16", "uint16_t", "t"), ("f32", "float", "f"), ("f64", "double", "d")]  # memsim, C++, mangled
BYTES = {"uint16_t": 2, "float": 4, "double": 8}


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def static_blocks():
    """MEMSIM_STATIC_BLOCKS (kernels/static_dispatch.hpp): the blocks with static instantiations."""
    m = re.search(r"#define MEMSIM_STATIC_BLOCKS\(X\)(.*)", read("kernels", "static_dispatch.hpp"))
    return [(int(x), int(y)) for x, y in re.findall(r"X\((\d+),\s*(\d+)\)", m.group(1))]


def kernels():
    """(name, struct, footprint, square tile only, power-of-two tile_x) of every kernel of MEMSIM_KERNEL_SUITE
    (kernels/suite.hpp), read from its definition in kernels/suite/."""
    structs = re.findall(r"^\s*X\((\w+)\)", read("kernels", "suite.hpp"), re.M)
    text = "".join(read("kernels", "suite", h) for h in sorted(os.listdir(os.path.join(ROOT, "kernels", "suite")))
                   if h.endswith(".hpp"))
    out = []
    for st in structs:
        m = re.search(r"^struct %s\b(.*?)^};" % st, text, re.M | re.S)
        if not m:
            raise SystemExit("no definition of suite::%s in kernels/suite/" % st)
        body = m.group(1)
        info = re.search(r"info\(\)\s*\{[^\"]*\"([^\"]+)\"", body)
        fp = re.search(r"Footprint::(\w+)", body)
        if not info or not fp:
            raise SystemExit("cannot read suite::%s's name and footprint" % st)
        square = "square_tile_only = true" in body or "square_tile = true" in body
        out.append((info.group(1), st, fp.group(1), square, "pow2_tile_x = true" in body))
    return out


def default_tile(footprint, bx, by, elem_bytes):  # default_tile_extent (kernels/kernel_info.hpp)
    if footprint == "Chunk16":
        side = 16 // elem_bytes * max(bx, by)
        return side, side
    if footprint == "Vec4X":
        return 4 * bx, by
    if footprint == "Reg4x4":
        return 4 * bx, 4 * by
    return (bx, bx) if bx % by == 0 else (bx, by)


def instantiations():  # what default_tile_allowed (kernels/static_shape.hpp) lets the GPU build instantiate
    for name, struct, footprint, square, pow2 in kernels():
        for dtype, ctype, mangled in DTYPES:
            for bx, by in static_blocks():
                tx, ty = default_tile(footprint, bx, by, BYTES[ctype])
                if (square and tx != ty) or (pow2 and tx & (tx - 1)):
                    continue
                yield name, struct, dtype, ctype, mangled, bx, by


def source():
    lines = [
        "// Generated by scripts/sass_instruction_counts.py: the static instantiations the GPU build",
        "// makes (validate/suite_launch.cu's suite_kernel_any), for reading their SASS.",
        '#include "kernels/device_memory.cuh"',
        '#include "kernels/static_dispatch.hpp"',
        '#include "kernels/suite.hpp"',
        "using namespace memsim;",
        "template <class K, class T, class Shape>",
        "__global__ void suite_kernel_any(DeviceMemory<T> mem, Shape s) {",
        "  const ThreadCoord t{int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), int(threadIdx.y)};",
        "  K::body(mem, s, t);",
        "}",
    ]
    for name, struct, dtype, ctype, mangled, bx, by in instantiations():
        shape = "typename DefaultStaticShape<suite::%s, %d, %d, int32_t, %d>::type" % (struct, bx, by, BYTES[ctype])
        lines.append("template __global__ void suite_kernel_any<suite::%s, %s, %s>(DeviceMemory<%s>, %s);" %
                     (struct, ctype, shape, ctype, shape))
    return "\n".join(lines) + "\n"


def compile_sass(nvcc, cuobjdump):
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "gen", "memsim")
        os.makedirs(gen)
        with open(os.path.join(gen, "suite_includes.hpp"), "w") as f:  # what kernels/CMakeLists.txt generates
            for h in sorted(os.listdir(os.path.join(ROOT, "kernels", "suite"))):
                if h.endswith(".hpp"):
                    f.write('#include "kernels/suite/%s"\n' % h)
        with open(os.path.join(gen, "extra_static_shapes.inc"), "w") as f:  # the table's shapes only
            f.write("#define MEMSIM_EXTRA_STATIC_SHAPES(X)\n")
        cu = os.path.join(tmp, "instantiations.cu")
        with open(cu, "w") as f:
            f.write(source())
        cubin = os.path.join(tmp, "instantiations.cubin")
        subprocess.run([nvcc, "-std=c++17", "--expt-relaxed-constexpr", "-arch=sm_90", "-cubin", "-O3",
                        "-I" + ROOT, "-I" + os.path.join(tmp, "gen"), "-o", cubin, cu], check=True)
        text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"release ([0-9.]+), (V[0-9.]+)", text)
        version = "CUDA %s (nvcc %s)" % m.groups() if m else "CUDA (unknown release)"
        return subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout, version


def functions(sass):
    """{mangled name: [(address, instruction text)]}"""
    out = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name = part.split("\n", 1)[0].strip()
        ins = []
        for line in part.split("\n")[1:]:
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
            if m:
                ins.append((int(m.group(1), 16), m.group(2)))
        out[name] = ins
    return out


def find(funcs, struct, mangled, bx, by):
    key = "suite%d%sE%sNS0_11StaticShapeILi%dELi%dE" % (len(struct), struct, mangled, bx, by)
    hits = [n for n in funcs if key in n]
    if len(hits) != 1:
        raise SystemExit("no single SASS function for %s %s %dx%d (%d found)" % (struct, mangled, bx, by, len(hits)))
    return funcs[hits[0]]


PRED = r"@!?U?P[T0-9]+ "


def walk(ins, edge, square, early_exit, trace=None):
    """Instructions a warp executes along one path (see the module's text), and what it met on the way; each
    instruction's text is appended to trace where one is given."""
    at = {a: k for k, (a, _) in enumerate(ins)}
    k, count, edge_seen, notes = 0, 0, False, []
    while True:
        if k >= len(ins) or count > 10000:
            raise SystemExit("a path runs off the function")
        _, i = ins[k]
        count += 1
        if trace is not None:
            trace.append(i)
        if i == "EXIT":
            return count, notes
        if re.fullmatch(PRED + "EXIT", i):
            if early_exit and not edge:
                return count, notes
            k += 1
            continue
        m = re.fullmatch(r"(%s)?BRA (?:(!?U?P[T0-9]+), )?(?:`\()?(0x[0-9a-f]+)\)?" % PRED, i)
        if m:
            target = at[int(m.group(3), 16)]
            if m.group(1) and m.group(2):  # the uniform edge test
                if edge_seen:
                    raise SystemExit("two edge tests: " + i)
                edge_seen = True
                k = target if not edge else k + 1
            elif m.group(1):
                if not edge_seen:  # before the edge test: diagonal's grid-shape branch
                    notes.append("grid")
                    k = target if square else k + 1
                else:  # around an access (edge path): fall through, lanes active
                    k += 1
            else:
                k = target
            continue
        k += 1


def registers(operand):
    """The registers an operand names: R4 is one, R4.64 (a 64-bit pair, as in an address [R4.64+0x40]) two."""
    out = set()
    for m in re.finditer(r"\bR(\d+)(\.64)?\b", operand):
        n = int(m.group(1))
        out.update((n, n + 1) if m.group(2) else (n,))
    return out


def load_waits(path):
    """(global loads, waits) along a path: a warp issues LDGs until an instruction reads a register one of them
    writes (the scoreboard stalls it there until that load is back; in a staged kernel the first STS, in a
    direct one the first STG); the loads issued since the last wait are one round in flight. A load writes
    1, 2 or 4 registers from its destination (.64, .128); a store reads all its operands, any other
    instruction those after its destination. Loads / waits is the mean number in flight."""
    pending, loads, waits = set(), 0, 0
    for i in path:
        op, _, rest = re.sub("^" + PRED, "", i).partition(" ")
        operands = [o.strip() for o in rest.split(",")] if rest else []
        read = operands if op.startswith(("STG", "STS", "ST.", "RED", "ATOM")) else operands[1:]
        if pending and any(pending & registers(o) for o in read):
            waits, pending = waits + 1, set()
        if op.startswith("LDG"):
            width = 4 if ".128" in op else 2 if ".64" in op else 1
            first = int(re.match(r"R(\d+)", operands[0]).group(1))
            pending.update(range(first, first + width))
            loads += 1
    return loads, waits + (1 if pending else 0)


def counts(ins):
    path = []
    inner, notes = walk(ins, edge=False, square=False, early_exit=False, trace=path)
    loads, waits = load_waits(path)
    exit_, _ = walk(ins, edge=False, square=False, early_exit=True)
    square, _ = walk(ins, edge=False, square=True, early_exit=False) if "grid" in notes else (inner, None)
    square_exit, _ = walk(ins, edge=False, square=True, early_exit=True) if "grid" in notes else (exit_, None)
    edge, _ = walk(ins, edge=True, square="grid" not in notes, early_exit=False)
    edge_square, _ = walk(ins, edge=True, square=True, early_exit=False)
    return {"inner": inner, "exit": exit_, "square": square, "square_exit": square_exit, "edge": edge,
            "edge_square": edge_square, "loads": loads, "load_waits": waits}


def table(sass):
    funcs = functions(sass)
    rows = []
    for name, struct, dtype, _, mangled, bx, by in instantiations():
        rows.append((name, dtype, bx, by, counts(find(funcs, struct, mangled, bx, by))))
    return rows


def write_inc(rows, path, version):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp.%d" % os.getpid()  # whole or not at all: renamed over path once written
    with open(tmp, "w") as f:
        f.write("// Generated by scripts/sass_instruction_counts.py from cuobjdump -sass of the suite's\n"
                "// static instantiations, sm_90, %s. Warp instructions along each path: kernel, dtype,\n"
                "// block, inner tile (through, leaving at the first predicated EXIT), the same on a square grid\n"
                "// (diagonal's other branch), edge tile (general, square grid); then the inner path's global loads\n"
                "// and the waits for them (loads in flight a warp: loads / waits). Do not edit: regenerate.\n"
                % version)
        for name, dtype, bx, by, c in rows:
            f.write('{"%s", Dtype::%s, %d, %d, {%d, %d, %d, %d, %d, %d, %d, %d}},\n' %
                    (name, dtype.upper(), bx, by, c["inner"], c["exit"], c["square"], c["square_exit"], c["edge"],
                     c["edge_square"], c["loads"], c["load_waits"]))
    os.replace(tmp, path)


def check(rows, runs):
    """Per configuration: measured smsp__inst_executed.sum against the table's count for the launch (inner tiles
    only: the suite's matrices are whole tiles; the early exit by warps of the tall blocks' drain, as the
    estimate in codegen/launch_instructions.cpp counts it)."""
    by_key = {(n, d, bx, by): c for n, d, bx, by, c in rows}
    worst = 0
    for path in runs:
        for rec in json.load(open(path))["records"]:
            cfg = rec["config"]
            m = rec.get("metrics", {}).get("smsp__inst_executed.sum", {}).get("measured")
            if m is None or cfg.get("shape") != "static":
                continue
            c = by_key[(cfg["kernel"], cfg["dtype"], cfg["block"]["x"], cfg["block"]["y"])]
            warps = cfg["blocks"] * ((cfg["threads_per_block"] + 31) // 32)
            per_warp = m / warps
            sq = cfg["grid"]["x"] == cfg["grid"]["y"]
            full, early = (c["square"], c["square_exit"]) if sq else (c["inner"], c["exit"])
            print("%-55s measured %6.2f a warp, path %3d, early exit %3d" % (rec["id"], per_warp, full, early))
            worst = max(worst, 0 if early <= per_warp <= full else 1)
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sass", help="a cuobjdump -sass dump of the instantiations (else --nvcc compiles them)")
    ap.add_argument("--nvcc")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--version", default="CUDA 13.0", help="the toolkit, for the table's header with --sass")
    ap.add_argument("--out", help="the C++ table to write")
    ap.add_argument("--compare", help="a committed table: exit 1 when the one written to --out differs from it")
    ap.add_argument("--check", nargs="*", default=[], help="validation runs (JSON) to compare the paths with")
    ap.add_argument("--source", action="store_true", help="print the .cu of the instantiations and stop")
    a = ap.parse_args()
    if a.source:
        sys.stdout.write(source())
        return 0
    if a.sass:
        sass, version = open(a.sass).read(), a.version
    elif a.nvcc:
        sass, version = compile_sass(a.nvcc, a.cuobjdump)
    else:
        ap.error("give --sass or --nvcc")
    rows = table(sass)
    if a.out:
        write_inc(rows, a.out, version)
        if a.compare and open(a.out).read() != open(a.compare).read():
            sys.stderr.write("%s differs from the SASS this toolkit compiles (%s): regenerate it with --out %s\n"
                             % (a.compare, version, a.compare))
            return 1
    return check(rows, a.check) if a.check else 0


if __name__ == "__main__":
    sys.exit(main())
