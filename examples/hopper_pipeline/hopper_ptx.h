// The sm_90a instructions examples/hopper_pipeline uses, as inline PTX: mbarriers, 1-D bulk copies
// (the TMA engine without a tensor map), and wgmma reading both operands from shared memory through
// matrix descriptors, without swizzling. Also the host-side packing of a K-major f16 matrix into
// the core-matrix layout those descriptors describe. Shared by hopper_pipeline.cu and
// wgmma_probe.cu, so the probe checks exactly what the pipeline runs.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

namespace hopper {

// A wgmma operand in shared memory is made of core matrices: 8 rows (of M or N) x 16 bytes (8
// halves along K), 128 contiguous bytes, row r at byte 16 * r.
constexpr int kCoreRows = 8, kCoreK = 8, kCoreBytes = 128;

// Byte offset of element (row, k) in a tile packed as core matrices, core matrix (row / 8, k / 8)
// at (row / 8) * row_group_stride + (k / 8) * k_group_stride.
constexpr size_t core_offset(int row, int k, size_t row_group_stride, size_t k_group_stride) {
  return size_t(row / kCoreRows) * row_group_stride + size_t(k / kCoreK) * k_group_stride +
         size_t(row % kCoreRows) * 16 + size_t(k % kCoreK) * sizeof(__half);
}

// Packs rows [row0, row0 + rows) x columns [k0, k0 + ks) of the row-major matrix `src` (leading
// dimension `ld`, K contiguous) into `dst` as core matrices.
inline void pack_core_matrices(const __half *src, size_t ld, int row0, int rows, int k0, int ks,
                               size_t row_group_stride, size_t k_group_stride, __half *dst) {
  auto *bytes = reinterpret_cast<unsigned char *>(dst);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < ks; ++k)
      *reinterpret_cast<__half *>(bytes + core_offset(r, k, row_group_stride, k_group_stride)) =
          src[size_t(row0 + r) * ld + k0 + k];
}

// The shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format" of wgmma): bits 0-13
// start address >> 4, bits 16-29 leading-dimension byte offset >> 4, bits 32-45 stride-dimension
// byte offset >> 4, bits 62-63 layout type (0: no swizzle). Base offset (bits 49-51) stays 0.
__host__ __device__ constexpr uint64_t smem_descriptor(uint32_t start, uint32_t leading_bytes,
                                                       uint32_t stride_bytes) {
  return uint64_t((start & 0x3FFFF) >> 4) | uint64_t((leading_bytes & 0x3FFFF) >> 4) << 16 |
         uint64_t((stride_bytes & 0x3FFFF) >> 4) << 32;
}

#ifdef __CUDACC__

__device__ __forceinline__ uint32_t smem_address(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_init(uint64_t *bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals)
               : "memory");
}

// Makes initialised mbarriers visible to the async proxy, which completes the bulk copies on them.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival, and `bytes` more transaction bytes the current phase waits for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(bar)) : "memory");
}

// Waits until the phase of parity `parity` has completed. A barrier's phases alternate parity,
// so the caller must never be two phases behind (the pipeline's ordering guarantees it).
__device__ __forceinline__ void mbarrier_wait(uint64_t *bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t"
                 "}"
                 : "=r"(done)
                 : "r"(smem_address(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}

// Copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared memory;
// the copy completes as `bytes` transaction bytes on `bar`.
__device__ __forceinline__ void bulk_copy_to_shared(void *dst, const void *src, uint32_t bytes,
                                                    uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
               "[%3];" ::"r"(smem_address(dst)),
               "l"(src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}

// Named barrier `id` (1-15; 0 is __syncthreads) for `threads` threads: sync waits, arrive does not.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Orders this thread's earlier generic-proxy writes to shared memory before later async-proxy
// reads of it (wgmma operands written by threads rather than by a bulk copy).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// wgmma exists in sm_90a only. `nvcc -arch=sm_90a` also emits compute_90 PTX (for JIT on other
// GPUs), where these trap instead.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HOPPER_WGMMA(...) asm volatile(__VA_ARGS__)
#else
#define HOPPER_WGMMA(...) __trap()
#endif

__device__ __forceinline__ void wgmma_fence() {
  HOPPER_WGMMA("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  HOPPER_WGMMA("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most `Pending` committed wgmma groups of this warp are still running.
template <int Pending> __device__ __forceinline__ void wgmma_wait() {
  HOPPER_WGMMA("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// The accumulator fragment of an m64nN wgmma, per thread of the warpgroup: d[4j + i] is element
// (row, col) with row = 16 * warp + lane / 4 + 8 * (i / 2), col = 8 * j + 2 * (lane % 4) + i % 2.
__device__ __forceinline__ int fragment_row(int thread, int i) {
  return 16 * (thread / 32) + (thread % 32) / 4 + 8 * ((i % 4) / 2);
}
__device__ __forceinline__ int fragment_col(int thread, int i) {
  return 8 * (i / 4) + 2 * (thread % 4) + i % 2;
}

#define HOPPER_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define HOPPER_D16(i) HOPPER_D4(i), HOPPER_D4(i + 4), HOPPER_D4(i + 8), HOPPER_D4(i + 12)

// d (64 x 64, f32) += A (64 x 16, f16, K-major) * B (16 x 64, f16, K-major: stored as 64 x 16),
// both read from shared memory through their descriptors. `accumulate` false: d = A * B.
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t a, uint64_t b,
                                                bool accumulate) {
  HOPPER_WGMMA("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.b32 p, %34, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n\t"
               "}"
               : HOPPER_D16(0), HOPPER_D16(16)
               : "l"(a), "l"(b), "r"(int(accumulate)));
}

// The same with N = 128: d is 64 x 128, B is stored as 128 x 16.
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t a, uint64_t b,
                                                 bool accumulate) {
  HOPPER_WGMMA("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.b32 p, %66, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
               "%64, %65, p, 1, 1, 0, 0;\n\t"
               "}"
               : HOPPER_D16(0), HOPPER_D16(16), HOPPER_D16(32), HOPPER_D16(48)
               : "l"(a), "l"(b), "r"(int(accumulate)));
}

#undef HOPPER_D16
#undef HOPPER_D4
#undef HOPPER_WGMMA

#endif // __CUDACC__

} // namespace hopper
