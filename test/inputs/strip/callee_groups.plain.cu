// Groups declared on the call path (a role function declaring the producer and consumer rows, a
// function declaring its own row called in a loop, one __noinline__): stripped, and as originals
// in the traced build, the machine code is the never-annotated file's.

__device__ __forceinline__ void load(float *smem, const float *in, int k) {
  smem[threadIdx.x % 128] = in[k * 128 + threadIdx.x % 128];
}

__device__ __noinline__ float mma(const float *smem, int k) {
  return smem[(threadIdx.x + k) % 128] * 2.0f;
}

__device__ __forceinline__ void roles(const float *in, float *out, int tiles) {
  __shared__ float smem[128];
  if (threadIdx.x / 128 == 0) {
    for (int k = 0; k < tiles; ++k)
      load(smem, in, k);
  } else {
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k)
      acc += mma(smem, k);
    out[blockIdx.x * 256 + threadIdx.x - 128] = acc;
  }
}

__device__ __forceinline__ void step(float *out, int t) {
  out[t] += 1.0f;
}

__global__ void gemm(const float *in, float *out, int tiles) { roles(in, out, tiles); }

__global__ void looped(float *out, int tiles) {
  for (int t = 0; t < tiles; ++t)
    step(out, t);
}
