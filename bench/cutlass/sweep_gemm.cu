// One CUTLASS 3 Hopper GEMM of the sweep (bench/cutlass/sweep.py), chosen by macros:
//   SWEEP_ELEMENT_F16, _BF16, _TF32 or _E4M3 = 1 (A and B; accumulator, C and D are float)
//   SWEEP_A_COLUMN  1: A column-major (tf32 then takes the register-sourced RS collective)
//   SWEEP_SCHEDULE_WS, _COOPERATIVE, _PINGPONG, _FP8_FAST = 1, or none: KernelScheduleAuto
//   SWEEP_TILE_M, SWEEP_TILE_N, SWEEP_CLUSTER_M: the CTA tile and the cluster along M
// Runs M x N x K = 256 x 256 x 256 once on operands of small integers (every product and sum is
// exact in each element type and in float), compares D with a host reference, and prints
// "Passed" or "Failed". Written for the sweep; CUTLASS's own examples are not changed.
// SWEEP_MNK=S (a multiple of 256 up to 16384) runs S x S x S instead and SWEEP_LAUNCHES=L runs
// it L times (the row-capacity run, bench/cutlass/gpu_rows.sh); above 256 the reference checks
// 4,096 elements spread over D, not all of them.
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/device_memory.h"
#include "cutlass/util/packed_stride.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace cute;

#if SWEEP_ELEMENT_F16
using Element = cutlass::half_t;
#elif SWEEP_ELEMENT_BF16
using Element = cutlass::bfloat16_t;
#elif SWEEP_ELEMENT_TF32
using Element = cutlass::tfloat32_t;
#else
using Element = cutlass::float_e4m3_t;
#endif

using LayoutA = cute::conditional_t<SWEEP_A_COLUMN, cutlass::layout::ColumnMajor,
                                    cutlass::layout::RowMajor>;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::ColumnMajor;

#if SWEEP_SCHEDULE_WS
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecialized;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#elif SWEEP_SCHEDULE_COOPERATIVE
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#elif SWEEP_SCHEDULE_PINGPONG
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#elif SWEEP_SCHEDULE_FP8_FAST
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#else
using MainloopSchedule = cutlass::gemm::collective::KernelScheduleAuto;
using EpilogueSchedule = cutlass::epilogue::collective::EpilogueScheduleAuto;
#endif

constexpr int kTileK = 128 / sizeof(Element); // 128 bytes of K per stage
using TileShape = Shape<Int<SWEEP_TILE_M>, Int<SWEEP_TILE_N>, Int<kTileK>>;
using ClusterShape = Shape<Int<SWEEP_CLUSTER_M>, _1, _1>;
constexpr int kAlign = 16 / sizeof(Element);

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float, float, LayoutC, 4, float,
    LayoutC, 4, EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA, kAlign, Element,
    LayoutB, kAlign, float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename CollectiveEpilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>,
                                                        CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

static int env_int(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

int main() {
  const int S = env_int("SWEEP_MNK", 256), launches = env_int("SWEEP_LAUNCHES", 1);
  if (S < 256 || S > 16384 || S % 256 != 0 || launches < 1) {
    std::printf("Failed: SWEEP_MNK must be a multiple of 256 up to 16384, SWEEP_LAUNCHES >= 1\n");
    return 2;
  }
  const int M = S, N = S, K = S;
  std::vector<Element> a(size_t(M) * K), b(size_t(K) * N);
  std::vector<float> c(size_t(M) * N, 0.0f), d(size_t(M) * N, 0.0f);
  // Values in {-2, ..., 2}: sums of up to 16384 products stay integers below 2^16, exact
  // everywhere.
  auto value = [](int i, int j, int salt) { return float(((i * 7 + j * 3 + salt) % 5) - 2); };
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      a[SWEEP_A_COLUMN ? m + size_t(k) * M : size_t(m) * K + k] = Element(value(m, k, 1));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      b[k + size_t(n) * K] = Element(value(k, n, 2));
  // The elements checked: all of them at 256, else 4,096 spread over D.
  const size_t elements = size_t(M) * N, step = S == 256 ? 1 : elements / 4096 + 1;
  auto reference = [&](size_t i) {
    const int m = int(i % M), n = int(i / M);
    double sum = 0;
    for (int k = 0; k < K; ++k)
      sum += double(float(a[SWEEP_A_COLUMN ? m + size_t(k) * M : size_t(m) * K + k])) *
             double(float(b[k + size_t(n) * K]));
    return float(sum);
  };
  cutlass::DeviceAllocation<Element> da(a.size()), db(b.size());
  cutlass::DeviceAllocation<float> dc(c.size()), dd(d.size());
  da.copy_from_host(a.data());
  db.copy_from_host(b.data());
  dc.copy_from_host(c.data());

  auto stride_a = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, {M, K, 1});
  auto stride_b = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, {N, K, 1});
  auto stride_c = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideC{}, {M, N, 1});
  auto stride_d = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, {M, N, 1});
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {M, N, K, 1},
                                {da.get(), stride_a, db.get(), stride_b},
                                {{1.0f, 0.0f}, dc.get(), stride_c, dd.get(), stride_d}};
  Gemm gemm;
  cutlass::device_memory::allocation<uint8_t> workspace(Gemm::get_workspace_size(args));
  cutlass::Status status = gemm.can_implement(args);
  if (status == cutlass::Status::kSuccess)
    status = gemm.initialize(args, workspace.get());
  if (status == cutlass::Status::kSuccess)
    for (int l = 0; l < launches && status == cutlass::Status::kSuccess; ++l)
      status = gemm.run();
  cudaError_t err = cudaDeviceSynchronize();
  if (status != cutlass::Status::kSuccess || err != cudaSuccess) {
    std::printf("Failed: %s, %s\n", cutlassGetStatusString(status), cudaGetErrorString(err));
    return 1;
  }
  dd.copy_to_host(d.data());
  int wrong = 0, checked = 0;
  for (size_t i = 0; i < elements; i += step, ++checked)
    wrong += d[i] != reference(i);
  std::printf("%s: %d of %d elements differ from the host reference\n",
              wrong ? "Failed" : "Passed", wrong, checked);
  return wrong ? 1 : 0;
}
