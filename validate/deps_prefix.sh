# Sourced by the scripts that build memsim on a GPU machine (validate/check_kernel_files*.sh), from the
# source tree's root: unpacks the committed .deps/*.deb packages (Boost 1.74, Eigen, nlohmann-json) into
# /tmp/deps where they are present, and sets the array `prefix` to the CMake options that find them (empty
# where there are none: the machine's own packages).
prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  # Boost 1.74 from the .deb files, not another Boost whose configs the machine has. Its CMake config and headers
  # come in libboost1.74-dev: without it CMake finds the machine's Boost (1.83 on one H100 image, 2026-12-05,
  # which has no program_options) and fails far from the cause.
  boost_dir=/tmp/deps/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0
  if [ ! -f "$boost_dir/BoostConfig.cmake" ]; then
    echo "deps_prefix.sh: .deps/ has .deb files but no libboost1.74-dev (Boost's CMake config and headers);" \
         "add it: apt-get download libboost1.74-dev" >&2
    return 2  # sourced: the caller stops (". validate/deps_prefix.sh || exit 2")
  fi
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/deps/usr -DBoost_DIR="$boost_dir")
fi
