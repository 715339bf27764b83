// cutrace-test-flags: -std=c++17
// Streaming kernels: a cuda::barrier-synchronised two-phase transpose-and-scale of 3-D volumes
// (3-D blocks), and evict-first copies (__ldcs/__stcs on float, float4 and int4). Inline PTX
// reads the SM id and lane id.
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

// The barrier in shared memory is initialised explicitly with init() by one thread.
#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

struct Volume {
  int nx;
  int ny;
  int nz;
};

constexpr int kBx = 8;
constexpr int kBy = 8;
constexpr int kBz = 4;

// out(z, x, y) = scale * in(x, y, z) per brick; the brick is staged in shared memory.
__global__ void __launch_bounds__(kBx * kBy * kBz)
    brick_permute(const float *__restrict__ in, float *__restrict__ out, Volume v, float scale,
                  unsigned *__restrict__ sm_of_block) {
  __shared__ float brick[kBz][kBy][kBx + 1];
  __shared__ block_barrier bar;
  const int tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  if (tid == 0) {
    init(&bar, blockDim.x * blockDim.y * blockDim.z);
    sm_of_block[blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y] = sm_id();
  }
  __syncthreads();

  const int x = blockIdx.x * kBx + threadIdx.x;
  const int y = blockIdx.y * kBy + threadIdx.y;
  const int z = blockIdx.z * kBz + threadIdx.z;
  const bool inside = x < v.nx && y < v.ny && z < v.nz;
  const size_t in_idx = (static_cast<size_t>(z) * v.ny + y) * v.nx + x;

  brick[threadIdx.z][threadIdx.y][threadIdx.x] = inside ? __ldcs(in + in_idx) * scale : 0.0f;
  bar.arrive_and_wait();

  // Second phase: threads read the brick transposed in x/y.
  const int tx = blockIdx.x * kBx + threadIdx.y;
  const int ty = blockIdx.y * kBy + threadIdx.x;
  if (tx < v.nx && ty < v.ny && z < v.nz) {
    const size_t out_idx = (static_cast<size_t>(tx) * v.ny + ty) * v.nz + z;
    __stcs(out + out_idx, brick[threadIdx.z][threadIdx.x][threadIdx.y]);
  }

  block_barrier::arrival_token token = bar.arrive();
  bar.wait(std::move(token));
}

// Evict-first copy of a large buffer: 16-byte vectors, then the scalar tail.
__global__ void __launch_bounds__(256)
    stream_copy_scale(const float *__restrict__ in, float *__restrict__ out, size_t n, float s) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t vec_n = n / 4;
  const float4 *in4 = reinterpret_cast<const float4 *>(in);
  float4 *out4 = reinterpret_cast<float4 *>(out);
  for (size_t i = first; i < vec_n; i += stride) {
    float4 q = __ldcs(in4 + i);
    q.x *= s;
    q.y *= s;
    q.z *= s;
    q.w *= s;
    __stcs(out4 + i, q);
  }
  for (size_t i = vec_n * 4 + first; i < n; i += stride) {
    __stcs(out + i, __ldcs(in + i) * s);
  }
}

// Integer histogram keys copied through int4 with a lane-dependent xor mask.
__global__ void __launch_bounds__(128)
    stream_keys(const int4 *__restrict__ in, int4 *__restrict__ out, int n_vec, int mask) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_vec) {
    return;
  }
  const int lane = static_cast<int>(lane_id());
  int4 k = __ldcs(in + i);
  k.x ^= mask + lane;
  k.y ^= mask + lane;
  k.z ^= mask - lane;
  k.w ^= mask - lane;
  __stcs(out + i, k);
}

cudaError_t permute_volume(const float *in, float *out, Volume v, float scale, unsigned *sms,
                           cudaStream_t stream) {
  const dim3 block(kBx, kBy, kBz);
  const dim3 grid((v.nx + kBx - 1) / kBx, (v.ny + kBy - 1) / kBy, (v.nz + kBz - 1) / kBz);
  brick_permute<<<grid, block, 0, stream>>>(in, out, v, scale, sms);
  return cudaGetLastError();
}

cudaError_t copy_buffers(const float *in, float *out, size_t n, const int4 *keys, int4 *keys_out,
                         int n_vec, cudaStream_t stream) {
  stream_copy_scale<<<132 * 4, 256, 0, stream>>>(in, out, n, 2.0f);
  stream_keys<<<(n_vec + 127) / 128, 128, 0, stream>>>(keys, keys_out, n_vec, 0x5a5a);
  return cudaGetLastError();
}

int main() {
  const Volume v{64, 48, 20};
  const size_t cells = static_cast<size_t>(v.nx) * v.ny * v.nz;
  const int n_vec = 4096;
  float *in = nullptr;
  float *out = nullptr;
  int4 *keys = nullptr;
  int4 *keys_out = nullptr;
  unsigned *sms = nullptr;
  cudaMalloc(&in, cells * sizeof(float));
  cudaMalloc(&out, cells * sizeof(float));
  cudaMalloc(&keys, n_vec * sizeof(int4));
  cudaMalloc(&keys_out, n_vec * sizeof(int4));
  cudaMalloc(&sms, 8 * 6 * 5 * sizeof(unsigned));
  cudaMemset(in, 0, cells * sizeof(float));
  cudaMemset(keys, 0, n_vec * sizeof(int4));

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaError_t err = permute_volume(in, out, v, 0.5f, sms, stream);
  if (err == cudaSuccess) {
    err = copy_buffers(in, out, cells, keys, keys_out, n_vec, stream);
  }
  cudaStreamSynchronize(stream);
  std::printf("%s\n", cudaGetErrorString(err));
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
  cudaFree(keys);
  cudaFree(keys_out);
  cudaFree(sms);
  return err == cudaSuccess ? 0 : 1;
}
