// cuda-samples spell the alignment after the memory space; nvcc accepts it, Clang 19 reports
// "an attribute list cannot appear here". The traced rewrite goes on, with a note.
#include <cutrace/trace.h>

__global__ void tile(const float *in, float *out) {
  TRACE_GROUP("tile", 0);
  __shared__ alignas(alignof(float4)) float As[32][32];
  TRACE_RANGE("load");
  As[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = As[threadIdx.x][threadIdx.y];
}

void run(const float *in, float *out) { tile<<<1, dim3(32, 32)>>>(in, out); }
