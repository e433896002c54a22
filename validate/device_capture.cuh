#pragma once
// A memory policy that records instead of accessing: each load or store a body makes writes the byte offset it
// computed (and its width) into a device buffer indexed by (thread, site, occurrence). Compared with the
// replay's recorder (sim/recorder.hpp), it proves the GPU computes the very addresses memsim counts.
#include <cstdint>

#include "kernels/config.hpp"
#include "validate/capture_format.hpp"

namespace memsim::validate {

template <class T>
struct DeviceCapture {
  using Elem = T;
  int64_t* slots;  // [thread][site][capacity], or null on the counting pass
  int* counts;     // [thread][site]: how often each thread reached each site
  int num_sites;
  int capacity;    // occurrences kept per (thread, site)
  int64_t thread;  // this thread's index among the captured ones
  int occurrence[kMaxCaptureSites];

  // Global offsets count from the start of the matrix the access addresses (input for loads, output for
  // stores), shared offsets from the start of the block's tile, as the replay's addresses do.
  template <class V>
  __device__ V load_global(int site, bool pred, int64_t off) {
    note(site, pred, off, int(sizeof(V)));
    return V{};
  }
  template <class V>
  __device__ void store_global(int site, bool pred, int64_t off, const V&) {
    note(site, pred, off, int(sizeof(V)));
  }
  template <class V>
  __device__ V load_shared(int site, bool pred, int off) {
    note(site, pred, off, int(sizeof(V)));
    return V{};
  }
  template <class V>
  __device__ void store_shared(int site, bool pred, int off, const V&) {
    note(site, pred, off, int(sizeof(V)));
  }
  __device__ void sync() { __syncthreads(); }

  __device__ void start() {
    for (int s = 0; s < kMaxCaptureSites; ++s) occurrence[s] = 0;
  }
  __device__ void finish() const {
    for (int s = 0; s < num_sites; ++s) counts[thread * num_sites + s] = occurrence[s];
  }

 private:
  __device__ void note(int site, bool pred, int64_t elem_offset, int width) {
    const int o = occurrence[site]++;
    if (slots && o < capacity)
      slots[(thread * num_sites + site) * capacity + o] =
          pred ? pack_capture(elem_offset * int64_t(sizeof(T)), width) : kCaptureInactive;
  }
};

}  // namespace memsim::validate
