// Tile shape of the warp-specialized GEMM: one producer warp stages A and B k-tiles into a
// two-slot shared-memory ring; four consumer warps each own 8 rows of the 32x32 output tile.
#ifndef CUTRACE_EXAMPLES_GEMM_TILES_H
#define CUTRACE_EXAMPLES_GEMM_TILES_H

constexpr int kTileM = 32;
constexpr int kTileN = 32;
constexpr int kTileK = 16;
constexpr int kStages = 2;
constexpr int kProducerThreads = 32;
constexpr int kConsumerThreads = 128;
constexpr int kThreads = kProducerThreads + kConsumerThreads;
// Each consumer thread computes kColsPerThread adjacent outputs of one row.
constexpr int kColsPerThread = kTileM * kTileN / kConsumerThreads;

#endif // CUTRACE_EXAMPLES_GEMM_TILES_H
