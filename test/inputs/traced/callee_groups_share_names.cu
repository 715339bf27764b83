// A group name identifies one row per kernel: 'producer' declared in the kernel and in a callee
// is one row, 'consumer' declared in two callees is one row. The callee computes the consumer's
// lead, so that group picks its writer where each declaration runs, the constant one included.
#include <cutrace/trace.h>

__device__ __forceinline__ void produce(float *buf, int k) {
  TRACE_GROUP("producer", 0);
  TRACE_RECORD("produce", k);
  buf[k] = float(k);
}

__device__ __forceinline__ float consume_even(const float *buf, int k) {
  TRACE_GROUP("consumer", 32);
  TRACE_RECORD("even", k);
  return buf[k];
}

__device__ __forceinline__ float consume_odd(const float *buf, int k, int lead) {
  TRACE_GROUP("consumer", lead);
  TRACE_RECORD("odd", k);
  return buf[k];
}

__global__ void shared_names(float *buf, float *out, int tiles) {
  TRACE_GROUP("producer", 0);
  TRACE_RECORD("setup");
  float acc = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    if (threadIdx.x < 32)
      produce(buf, k);
    else
      acc += k % 2 ? consume_odd(buf, k, 32) : consume_even(buf, k);
  }
  out[threadIdx.x] = acc;
}

int main() {
  float *buf, *out;
  cudaMalloc(&buf, 64 * sizeof(float));
  cudaMalloc(&out, 64 * sizeof(float));
  shared_names<<<1, 64>>>(buf, out, 8);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
