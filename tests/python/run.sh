#!/usr/bin/env bash
# run.sh BUILD_DIR PYTHON TEST.py [ARGS]: runs a Python test with the package the build laid out in
# BUILD_DIR/python, under BUILD_DIR/python-venv's interpreter where scripts/python-venv.sh made one (Kernel
# Tuner, pandas, matplotlib), else under PYTHON (the interpreter the module was built for).
set -euo pipefail
build=$1 python=$2
shift 2
if [ -x "$build/python-venv/bin/python" ]; then python="$build/python-venv/bin/python"; fi
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" MEMSIM_BIN="$build/app/memsim" MPLBACKEND=Agg
exec "$python" "$@"
