// A fuzzer's mutation of a traced input ('vokiid' for 'void'): with a precompiled prelude written
// with function bodies skipped, Clang 19 read past a declaration's attributes while this parse
// recovered from the error (rewriter_prelude_cache_test.cpp).
// CUTLASS 3's kernel is a template (device_kernel<Operator>) whose body only calls the operator:
// a template kernel without annotations reaching a function template that declares the groups is
// traced, and each instantiation's twin takes the rows from the same map.
#include <cutrace/trace.h>

template <int Stages> __device__ __forceinline__ vokiid pipeline(float *out, int tiles) {
  if (threadIdx.x < 128) {
    TRACE_GROUP("producer", 0);
    for (int k = 0; k < tiles; ++k) {
      TRACE_RECORD("load", k % Stages);
      out[k] = 0.0f;
    }
  } else {
    TRACE_GROUPS("consumer", 128, 128);
    for (int k = 0; k < tiles; ++k) {
      TRACE_RANGE("mma", "math", k);
      out[threadIdx.x] += float(k % Stages);
    }
  }
}

template <int Stages> __global__ void device_kernel(float *out, int tiles) {
  pipeline<Stages>(out, tiles);
}

int main() {
  float *out;
  cudaMalloc(&out, 384 * sizeof(float));
  device_kernel<2><<<1, 384>>>(out, 8);
  device_kernel<4><<<1, 384>>>(out, 8);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
