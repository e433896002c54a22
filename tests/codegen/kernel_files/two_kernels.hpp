// Two kernels in one file: memsim takes one.
#pragma once
#include "../../../examples/row_per_thread.hpp"
#include "../../../examples/copy_vec4.hpp"
