# Sourced by the scripts that build memsim on a GPU machine (validate/check_kernel_files*.sh), from the
# source tree's root: unpacks the committed .deps/*.deb packages (Boost 1.74, Eigen, nlohmann-json) into
# /tmp/deps where they are present, and sets the array `prefix` to the CMake options that find them (empty
# where there are none: the machine's own packages).
prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  # Boost 1.74 from the .deb files, not another Boost whose configs the machine has.
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/deps/usr -DBoost_DIR=/tmp/deps/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0)
fi
