#!/usr/bin/env bash
# Fetches the CUTLASS/CuTe headers the GPU validation's CuTe transpose baseline compiles against
# (validate/cute_transpose.cu, docs/validation.md) and unpacks them to DEST/include/{cute,cutlass}.
# The version is pinned: PyPI's nvidia-cutlass 4.2.0.0 wheel, checked against the sha256 below, so every
# machine builds the baseline from the same headers. Nothing else in memsim needs them, and no CPU build or CI
# step runs this script. DEST is usually the git-ignored .deps/cutlass (what validate/run_peers.sh looks for),
# small enough (about 26 MB) to carry to a GPU machine that has no network.
#
#   scripts/install-cutlass.sh DEST          e.g. scripts/install-cutlass.sh .deps/cutlass
#   cmake ... -DMEMSIM_CUTLASS_DIR=DEST      (then memsim-validate has the cute_transpose baseline)
#
# Environment: PIP (default: python3 -m pip), MEMSIM_CUTLASS_WHEEL (an already downloaded wheel to unpack
# instead of downloading; its sha256 is checked all the same).
set -euo pipefail
readonly version=4.2.0.0
readonly wheel=nvidia_cutlass-${version}-py3-none-any.whl
readonly sha256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
# Where the wheel keeps the C++ headers (it ships the CUTLASS source tree for its Python code generator).
readonly inner=cutlass_library/source/include

usage_error() { echo "install-cutlass.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h | --help) sed -n '2,/^set /{ /^#/ s/^# \{0,1\}//p }' "$0"; exit 0 ;;
  "") usage_error "no DEST (usage: scripts/install-cutlass.sh DEST)" ;;
  -*) usage_error "unknown option $1 (usage: scripts/install-cutlass.sh DEST)" ;;
esac
[ $# -eq 1 ] || usage_error "one DEST only, got $# arguments"
dest=$1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${MEMSIM_CUTLASS_WHEEL:-}" ]; then
  cp "$MEMSIM_CUTLASS_WHEEL" "$work/$wheel"
else
  # shellcheck disable=SC2086  # PIP may be a command with arguments
  ${PIP:-python3 -m pip} download --quiet --no-deps --only-binary=:all: "nvidia-cutlass==$version" -d "$work"
fi
[ -f "$work/$wheel" ] || { echo "install-cutlass.sh: pip did not produce $wheel" >&2; exit 1; }
echo "$sha256  $work/$wheel" | sha256sum --check --quiet - ||
  { echo "install-cutlass.sh: $wheel does not have the pinned sha256 $sha256" >&2; exit 1; }

# Only include/cute and include/cutlass: the tools, examples and Python sources stay behind.
python3 - "$work/$wheel" "$inner" "$work/out" <<'EOF'
import os, sys, zipfile
wheel, inner, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        rel = name[len(inner) + 1:] if name.startswith(inner + "/") else None
        if not rel or name.endswith("/") or rel.split("/")[0] not in ("cute", "cutlass"):
            continue
        path = os.path.join(out, "include", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(name) as src, open(path, "wb") as dst:
            dst.write(src.read())
EOF
[ -f "$work/out/include/cute/tensor.hpp" ] || { echo "install-cutlass.sh: no cute/tensor.hpp in $wheel" >&2; exit 1; }
echo "nvidia-cutlass==$version sha256:$sha256" >"$work/out/VERSION"
mkdir -p "$dest"
rm -rf "$dest/include"
mv "$work/out/include" "$dest/include"
mv "$work/out/VERSION" "$dest/VERSION"
echo "install-cutlass.sh: CUTLASS/CuTe headers of nvidia-cutlass $version in $dest/include ($(du -sh "$dest" | cut -f1))"
