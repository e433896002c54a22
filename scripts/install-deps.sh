#!/usr/bin/env bash
# Installs the Debian packages memsim builds with (skips what is already there); clang and its runtime
# libraries (libFuzzer, the sanitizers) for the checking build of scripts/test.sh; pybind11 and Python's headers
# for the Python module, python3-venv for its tests' Kernel Tuner (scripts/python-venv.sh).
set -euo pipefail
pkgs=(build-essential cmake ninja-build libeigen3-dev libboost-program-options-dev nlohmann-json3-dev
      libgtest-dev libbenchmark-dev python3 python3-matplotlib clang libclang-rt-dev help2man
      pybind11-dev python3-dev python3-venv)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
echo "memsim: installing ${missing[*]}"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
