// Stands for a library's kernel header (CUTLASS's kernel and collective headers), found on the
// -isystem path and annotated by its user: a kernel template with a group and a range, calling an
// annotated helper template of the same header. Copied: it holds annotations.
#pragma once
#include <cutrace/trace.h>
#include <plain/math.h>

namespace tile {
template <int N> __device__ float load(const float *in, int i) {
  TRACE_RECORD("load", i, "mem");
  return plain::twice(in[blockIdx.x * N + i]);
}

template <int N> __global__ void tile_sum(const float *in, float *out) {
  TRACE_GROUP("tile", 0);
  float acc = 0.0f;
  for (int i = 0; i < N; ++i) {
    TRACE_RANGE("step", "main", i);
    acc += load<N>(in, i);
  }
  out[blockIdx.x] = acc;
}
} // namespace tile
