#pragma once
// The kernel suite. Adding a kernel: write its struct in kernels/suite/<name>.hpp (sites, info(), body) and
// add one X(...) line below; the replay, the CLI and the GPU validation pick it up from this list. The build
// includes every header of kernels/suite/ (kernels/CMakeLists.txt generates the list).
#include "memsim/suite_includes.hpp"

#define MEMSIM_KERNEL_SUITE(X) \
  X(Copy)                      \
  X(CopyShared)                \
  X(Naive)                     \
  X(NaiveRead)                 \
  X(Coalesced)                 \
  X(Padded)                    \
  X(Diagonal)                  \
  X(Coarse)                    \
  X(Fine)                      \
  X(Swizzle)                   \
  X(Vec4)                      \
  X(Vec4Shared)                \
  X(Reg4x4)                    \
  X(Best)
