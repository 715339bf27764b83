// The kernels declared in kernels.h. Each records a few events: a group or a range around its
// work and a record where it stores its result.
#include <cutrace/trace.h>

#include <cooperative_groups.h>

#include "kernels.h"

__global__ void row_sum(const float *m, float *sums, int rows, int cols) {
  TRACE_GROUP("row", 0);
  TRACE_RANGE("sum", "main", int(blockIdx.x));
  __shared__ float part[128];
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += m[blockIdx.x * cols + c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0 && blockIdx.x < rows)
    sums[blockIdx.x] = part[0];
  TRACE_RECORD("stored", int(blockIdx.x));
}

__global__ void scale(float *x, float factor, int n) {
  TRACE_RANGE("scale");
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
  TRACE_RECORD("scaled", int(blockIdx.x));
}

__global__ void square(float *x, int n) {
  TRACE_RANGE("square", "main", int(blockIdx.x));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * x[i];
}

__global__ void grid_sum(const float *x, float *partial, float *total, int n) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  __shared__ float part[256];
  {
    TRACE_RANGE("partial", "main", int(blockIdx.x));
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      s += x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride)
        part[threadIdx.x] += part[threadIdx.x + stride];
      __syncthreads();
    }
    if (threadIdx.x == 0)
      partial[blockIdx.x] = part[0];
  }
  grid.sync();
  TRACE_RECORD("synced", int(blockIdx.x));
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    TRACE_RANGE("total");
    float t = 0.0f;
    for (int b = 0; b < gridDim.x; ++b)
      t += partial[b];
    *total = t;
  }
}

__global__ void iota(int *x, int n) {
  TRACE_RECORD("iota", int(blockIdx.x));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = i;
}

__global__ void saxpy(float a, const float *x, float *y, int n) {
  TRACE_RANGE("saxpy");
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}
