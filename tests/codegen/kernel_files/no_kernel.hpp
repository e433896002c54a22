// The example's struct without MEMSIM_KERNEL: memsim finds no kernel.
#pragma once
#include "kernels/plugin.hpp"
#undef MEMSIM_KERNEL
#define MEMSIM_KERNEL(K)
#include "../../../examples/row_per_thread.hpp"
