// Groups declared together in a kernel: after `TRACE_GROUP("producer", 0);
// TRACE_GROUPS("consumer", 128, 128);` both are in effect, and each thread records into the one
// whose row it writes: the kernel's entry declares their cutrace::WriterOf, markers and calls
// use it. A group in a nested block still shadows them there.
#include <cutrace/trace.h>

__device__ __forceinline__ float stage(float v, int k) {
  TRACE_RECORD("stage", k);
  return v + k;
}

__global__ void warp_specialized(float *out, int k_tiles) {
  TRACE_GROUP("producer", 0);
  TRACE_GROUPS("consumer", 128, 128);
  float acc = 0.0f;
  for (int k = 0; k < k_tiles; ++k) {
    TRACE_RANGE("step", "main", k);
    acc = stage(acc, k);
  }
  if (threadIdx.x == 32) {
    TRACE_GROUP("epilogue", 32);
    TRACE_RECORD("store");
  }
  out[threadIdx.x] = acc;
}

void run(float *out) { warp_specialized<<<1, 384>>>(out, 4); }
