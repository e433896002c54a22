#!/usr/bin/env bash
# cmake --install into an empty prefix, then: the installed memsim reads the installed profiles (a profile that
# exists only there is found; the build tree's memsim does not know it), from any working directory, and
# answers the README's first command.
#   check_install.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
memsim=$prefix/bin/memsim
[ -x "$memsim" ] || { echo "no memsim at $memsim after cmake --install"; exit 1; }
devices=$prefix/share/memsim/devices
[ -f "$devices/h100.json" ] || { echo "no h100.json in $devices"; exit 1; }
[ -f "$prefix/share/memsim/plots/memsim_plot.py" ] || { echo "no plotting script installed"; exit 1; }
# The kernel headers nvcc compiles a configuration from (codegen/compiled_code.hpp), beside the profiles.
[ -f "$prefix/share/memsim/include/kernels/suite.hpp" ] && [ -f "$prefix/share/memsim/include/kernels/suite/best.hpp" ] ||
  { echo "no kernel headers installed"; exit 1; }
# The documentation --help points to, and the man page where help2man made one.
[ -f "$prefix/share/doc/memsim/docs/cli.md" ] || { echo "no docs/cli.md installed"; exit 1; }
if command -v help2man >/dev/null 2>&1; then
  [ -f "$prefix/share/man/man1/memsim.1" ] || { echo "no man page installed"; exit 1; }
  grep -qF 'kernel' "$prefix/share/man/man1/memsim.1" || { echo "the man page lists no --kernel"; exit 1; }
fi
cp "$devices/h100.json" "$devices/only_installed.json"
cd "$work"
unset MEMSIM_DEVICE_DIR MEMSIM_PLOT_SCRIPT
"$memsim" --kernel padded --block 32x8 --device only_installed >out.txt ||
  { echo "installed memsim did not read its installed profiles"; cat out.txt; exit 1; }
grep -q "padded" out.txt || { echo "installed memsim printed no report"; exit 1; }
rc=0
"$build/app/memsim" --kernel padded --device only_installed >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "the build tree's memsim found only_installed (status $rc): the test proves nothing"; exit 1; }
echo "install ok"
