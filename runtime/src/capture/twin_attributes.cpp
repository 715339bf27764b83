#include "twin_attributes.h"

#include <climits>
#include <cstdio>

namespace cutrace {
namespace {

// What cudaFuncSetAttribute accepts and cudaFuncGetAttributes reports. `required`: a twin
// without it would run differently (cluster shape); the others are hints, or (dynamic shared
// memory) checked against each launch.
struct Settable {
  cudaFuncAttribute id;
  int cudaFuncAttributes::*field;
  const char *name;
  bool required;
};
constexpr Settable kSettable[] = {
    {cudaFuncAttributeMaxDynamicSharedMemorySize, &cudaFuncAttributes::maxDynamicSharedSizeBytes,
     "cudaFuncAttributeMaxDynamicSharedMemorySize", false},
    {cudaFuncAttributePreferredSharedMemoryCarveout, &cudaFuncAttributes::preferredShmemCarveout,
     "cudaFuncAttributePreferredSharedMemoryCarveout", false},
    {cudaFuncAttributeRequiredClusterWidth, &cudaFuncAttributes::requiredClusterWidth,
     "cudaFuncAttributeRequiredClusterWidth", true},
    {cudaFuncAttributeRequiredClusterHeight, &cudaFuncAttributes::requiredClusterHeight,
     "cudaFuncAttributeRequiredClusterHeight", true},
    {cudaFuncAttributeRequiredClusterDepth, &cudaFuncAttributes::requiredClusterDepth,
     "cudaFuncAttributeRequiredClusterDepth", true},
    {cudaFuncAttributeNonPortableClusterSizeAllowed,
     &cudaFuncAttributes::nonPortableClusterSizeAllowed,
     "cudaFuncAttributeNonPortableClusterSizeAllowed", true},
    {cudaFuncAttributeClusterSchedulingPolicyPreference,
     &cudaFuncAttributes::clusterSchedulingPolicyPreference,
     "cudaFuncAttributeClusterSchedulingPolicyPreference", false},
};

bool same_settable(const cudaFuncAttributes &a, const cudaFuncAttributes &b) {
  for (const Settable &s : kSettable)
    if (a.*s.field != b.*s.field)
      return false;
  return true;
}

template <class... Args> std::string format(const char *fmt, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, fmt, args...);
  return text;
}

} // namespace

TwinAttributes::Verdict TwinAttributes::check(const detail::LaunchShape &shape, std::string &why) {
  // A failed query sets the thread's last error; the caller's own pending error is left alone.
  const cudaError_t pending = cudaPeekAtLastError();
  Verdict verdict;
  {
    std::lock_guard<std::mutex> lock(mu_);
    verdict = check_locked(shape, why);
  }
  if (pending == cudaSuccess)
    (void)cudaGetLastError();
  return verdict;
}

void TwinAttributes::mirror(MirroredAttributes &m, const cudaFuncAttributes &original) {
  std::string &why = m.failure;
  cudaFuncAttributes twin;
  if (cudaError_t err = cudaFuncGetAttributes(&twin, twin_); err != cudaSuccess) {
    why = format("the traced kernel cannot be loaded (%s)", cudaGetErrorString(err));
    return;
  }
  for (const Settable &s : kSettable) {
    const int want = original.*s.field;
    if (twin.*s.field == want)
      continue;
    const cudaError_t err = cudaFuncSetAttribute(twin_, s.id, want);
    if (err != cudaSuccess && s.required) {
      why = format("%s = %d, set on the original, cannot be set on the traced kernel (%s)", s.name,
                   want, cudaGetErrorString(err));
      return;
    }
  }
  if (cudaError_t err = cudaFuncGetAttributes(&m.twin, twin_); err != cudaSuccess)
    why = format("the traced kernel cannot be queried (%s)", cudaGetErrorString(err));
}

TwinAttributes::Verdict TwinAttributes::check_locked(const detail::LaunchShape &shape,
                                                     std::string &why) {
  int device = 0;
  cudaFuncAttributes original;
  // Where the original cannot even be queried, its own launch reports the plain build's error.
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 ||
      cudaFuncGetAttributes(&original, original_) != cudaSuccess)
    return Verdict::original;
  if (size_t(device) >= devices_.size())
    devices_.resize(size_t(device) + 1);
  MirroredAttributes &m = devices_[size_t(device)];
  if (!m.valid || !same_settable(m.original, original)) {
    const int multiprocessors = m.multiprocessors;
    m = MirroredAttributes{};
    m.multiprocessors = multiprocessors;
    m.original = original;
    m.valid = true; // a failure is not retried until the original's attributes change
    mirror(m, original);
  }
  if (!m.failure.empty()) {
    why = m.failure;
    return Verdict::original_with_note;
  }

  const unsigned long long threads = 1ull * shape.block.x * shape.block.y * shape.block.z;
  if (threads > (unsigned long long)original.maxThreadsPerBlock)
    return Verdict::original;
  if (threads > (unsigned long long)m.twin.maxThreadsPerBlock) {
    why = format("the traced kernel runs at most %d threads per block (%d registers per thread, "
                 "the original %d) and this launch has %llu; give the kernel "
                 "__launch_bounds__(%llu) or launch smaller blocks",
                 m.twin.maxThreadsPerBlock, m.twin.numRegs, original.numRegs, threads, threads);
    return Verdict::original_with_note;
  }

  if (shape.shmem > size_t(original.maxDynamicSharedSizeBytes))
    return Verdict::original;
  if (shape.shmem > size_t(m.twin.maxDynamicSharedSizeBytes)) {
    if (shape.shmem <= size_t(INT_MAX) &&
        cudaFuncSetAttribute(twin_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(shape.shmem)) == cudaSuccess) {
      m.twin.maxDynamicSharedSizeBytes = int(shape.shmem);
    } else {
      why = format("this launch asks for %zu bytes of dynamic shared memory and the traced kernel "
                   "can have at most %d (static shared memory: %zu bytes, the original %zu)",
                   shape.shmem, m.twin.maxDynamicSharedSizeBytes, m.twin.sharedSizeBytes,
                   original.sharedSizeBytes);
      // The staged recorder's staging (cutrace/device_staging.h, CUTRACE_STAGING_SLOTS) is static
      // shared memory of the twin, the difference when it is built in.
      if (m.twin.sharedSizeBytes > original.sharedSizeBytes)
        why += format("; if the traced code was built with -DCUTRACE_STAGING_SLOTS, its staging "
                      "is the %zu bytes more: build it with -DCUTRACE_STAGING_SLOTS=0 (records "
                      "stored directly) or fewer slots to record this launch",
                      m.twin.sharedSizeBytes - original.sharedSizeBytes);
      return Verdict::original_with_note;
    }
  }

  if (shape.cooperative) {
    if (m.multiprocessors == 0 &&
        cudaDeviceGetAttribute(&m.multiprocessors, cudaDevAttrMultiProcessorCount, device) !=
            cudaSuccess)
      return Verdict::original;
    const unsigned long long blocks = 1ull * shape.grid.x * shape.grid.y * shape.grid.z;
    int twin_per_sm = 0, original_per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&twin_per_sm, twin_, int(threads),
                                                      shape.shmem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&original_per_sm, original_, int(threads),
                                                      shape.shmem) != cudaSuccess ||
        blocks > 1ull * original_per_sm * m.multiprocessors)
      return Verdict::original;
    if (blocks > 1ull * twin_per_sm * m.multiprocessors) {
      why = format("this cooperative launch has %llu blocks and only %d per multiprocessor of the "
                   "traced kernel fit (the original: %d); launch fewer blocks or give the kernel "
                   "__launch_bounds__(%llu, %llu)",
                   blocks, twin_per_sm, original_per_sm, threads,
                   (blocks + m.multiprocessors - 1) / m.multiprocessors);
      return Verdict::original_with_note;
    }
  }
  return Verdict::twin;
}

} // namespace cutrace
