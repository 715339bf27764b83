// Tile shapes of the warp-specialized GEMM and the shared-memory layout of one pipeline stage,
// shared by hopper_pipeline.cu and wgmma_probe.cu (which checks this layout on the GPU).
#pragma once

#include "hopper_ptx.h"

#include <vector>

// C (M x N, f32) = A (M x K, f16, row-major) * B^T, B given as N x K (f16, row-major): both
// operands K-major, as wgmma reads them without a transpose.
constexpr int kBlockM = 64;  // rows of C per output tile: one m64 wgmma
constexpr int kBlockN = 128; // columns of C per output tile: the n128 of the wgmma
constexpr int kBlockK = 64;  // K per stage: four k16 wgmma steps
constexpr int kStages = 4;   // shared-memory ring depth
constexpr int kKSteps = kBlockK / 16;

constexpr uint32_t kTileABytes = kBlockM * kBlockK * sizeof(__half); // 8 KiB
constexpr uint32_t kTileBBytes = kBlockN * kBlockK * sizeof(__half); // 16 KiB
constexpr uint32_t kStageBytes = kTileABytes + kTileBBytes;

// A packed tile holds its core matrices row group by row group, the 8 K groups of a row group
// next to each other: K-adjacent core matrices are 128 bytes apart, row-adjacent ones 1 KiB.
constexpr uint32_t kKGroupStride = hopper::kCoreBytes;
constexpr uint32_t kRowGroupStride = (kBlockK / hopper::kCoreK) * hopper::kCoreBytes;

// Which descriptor field carries which distance. The PTX ISA: for K-major operands the leading
// byte offset is the distance between K-adjacent core matrices and the stride byte offset the
// distance between M- or N-adjacent ones. wgmma_probe runs both readings on the GPU: flip this
// (or build with -DHOPPER_LEADING_IS_K=0) if it reports the other one.
#ifndef HOPPER_LEADING_IS_K
#define HOPPER_LEADING_IS_K 1
#endif
constexpr bool kLeadingIsK = HOPPER_LEADING_IS_K != 0;

// Descriptor of k-step `k_step` of a packed tile starting at shared address `tile`.
__host__ __device__ constexpr uint64_t tile_descriptor(uint32_t tile, int k_step,
                                                       bool leading_is_k) {
  return hopper::smem_descriptor(tile + uint32_t(k_step) * 2 * kKGroupStride,
                                 leading_is_k ? kKGroupStride : kRowGroupStride,
                                 leading_is_k ? kRowGroupStride : kKGroupStride);
}

// Every (block_rows x kBlockK) tile of the rows x k matrix `src`, packed; tile (rt, kt) at
// element (rt * (k / kBlockK) + kt) * block_rows * kBlockK, so one stage load is one bulk copy.
inline std::vector<__half> pack_tiles(const std::vector<__half> &src, int rows, int k,
                                      int block_rows) {
  std::vector<__half> out(src.size());
  const int k_tiles = k / kBlockK;
  for (int rt = 0; rt < rows / block_rows; ++rt)
    for (int kt = 0; kt < k_tiles; ++kt)
      hopper::pack_core_matrices(src.data(), k, rt * block_rows, block_rows, kt * kBlockK, kBlockK,
                                 kRowGroupStride, kKGroupStride,
                                 out.data() + (size_t(rt) * k_tiles + kt) * block_rows * kBlockK);
  return out;
}
