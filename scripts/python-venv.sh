#!/usr/bin/env bash
# python-venv.sh [BUILD_DIR]: the Python the tests of python/ run under, BUILD_DIR/python-venv (default build/):
# a venv of the interpreter the build's module is for (CMake's Python3_EXECUTABLE, else python3) with Kernel
# Tuner 1.5.0 from PyPI (it brings numpy, pandas and matplotlib) and nothing else. Skips what is there already;
# without PyPI it says so and leaves the Kernel Tuner tests to skip, saying why (docs/python.md).
set -euo pipefail
build=${1:-build}
venv="$build/python-venv"
python=python3
if [ -f "$build/CMakeCache.txt" ]; then
  # -DPython3_EXECUTABLE as given, else the one FindPython3 found (sorted first in the cache).
  cached=$(sed -n 's/^_\{0,1\}Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" | head -n 1)
  [ -n "$cached" ] && python=$cached
fi
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import kernel_tuner, pandas, matplotlib" 2>/dev/null; then exit 0; fi
mkdir -p "$build"
echo "memsim: installing kernel-tuner 1.5.0 into $venv (once; a few minutes)"
if ! { "$python" -m venv "$venv" && "$venv/bin/python" -m pip install -q --disable-pip-version-check \
       "kernel-tuner==1.5.0"; }; then
  echo "memsim: could not install kernel-tuner into $venv (no PyPI?); the Kernel Tuner tests will skip" >&2
fi
