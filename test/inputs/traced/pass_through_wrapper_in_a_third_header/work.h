// The annotated operator: its groups and ranges sit in a __device__ member, as FlashAttention-3
// writes its kernel class.
#pragma once
#include <cutrace/trace.h>
struct Work {
  struct Params {
    int *x;
  };
  __device__ void operator()(Params const &p) {
    if (threadIdx.x < 32) {
      TRACE_GROUP("producer", 0);
      TRACE_RANGE("store", "load");
      p.x[threadIdx.x] = 1;
    } else {
      TRACE_GROUPS("consumer", 32, 32);
      TRACE_RANGE("add", "math");
      p.x[threadIdx.x] += 2;
    }
  }
};
