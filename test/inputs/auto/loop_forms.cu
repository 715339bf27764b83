// --auto: every form of outermost loop gets a range per sampled iteration; nested loops and
// loops in lambdas do not (they belong to the outer loop's iteration, or to the lambda).
#include <cuda_runtime.h>

#define REPEAT(n) for (int r_ = 0; r_ < (n); ++r_)

struct Span3 {
  const float *p;
  __device__ const float *begin() const { return p; }
  __device__ const float *end() const { return p + 3; }
};

__global__ void loop_forms(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < 4; ++j) // nested: part of the outer iteration
      acc += in[(k + j) % n];
  }
  int w = n;
  while (w > 1)
    w /= 2;
  do {
    acc *= 0.5f;
  } while (acc > 1.f);
  for (float v : Span3{in})
    acc += v;
  auto twice = [&](float x) {
    float s = 0.f;
    for (int t = 0; t < 2; ++t) // in a lambda: the lambda's, not the kernel's
      s += x;
    return s;
  };
  REPEAT(2) acc += 1.f; // spelled by a macro: left out
  for (int k = 0; k < 8; ++k) /* a comment before the ';' */ acc -= 1.f /* and after */ ;
  if (i < n)
    out[i] = twice(acc) + float(w);
}

int main() {
  float *in = nullptr, *out = nullptr;
  loop_forms<<<2, 64>>>(in, out, 16);
  return cudaDeviceSynchronize() != cudaSuccess;
}
