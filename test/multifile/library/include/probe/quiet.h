// A header found through -I that declares itself a system header: the pragma does not keep an
// annotated header from being copied.
#pragma once
#pragma GCC system_header
#include <cutrace/trace.h>

namespace probe {
__global__ void drain(float *v) {
  TRACE_GROUP("drain", 0);
  TRACE_RANGE("settle", "probe");
  v[threadIdx.x] *= 0.5f;
}
} // namespace probe
