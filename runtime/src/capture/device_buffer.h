// One launch's trace buffer in device memory: allocation, zeroing, header, read-back.
#ifndef CUTRACE_SRC_DEVICE_BUFFER_H
#define CUTRACE_SRC_DEVICE_BUFFER_H

#include <cutrace/ctrace.h>
#include <cutrace/host.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

// Pinned host memory that device-to-host copies land in at full link speed (pageable memory
// would be staged by the driver); grows to the largest request and is reused. Outgrown blocks
// are kept, not freed: cudaFreeHost synchronizes the device, which would stall the program.
class PinnedStaging {
public:
  PinnedStaging() = default;
  PinnedStaging(const PinnedStaging &) = delete;
  PinnedStaging &operator=(const PinnedStaging &) = delete;
  ~PinnedStaging();
  // At least `bytes` of pinned memory, or nullptr when none can be had.
  uint8_t *reserve(size_t bytes);

private:
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t *> outgrown_; // freed with the object (at exit)
};

class DeviceBuffer {
public:
  // Allocates num_rows * row stride + header bytes from cutrace's own stream-ordered memory pool
  // and queues the zeroing on `stream`, then the header (from pinned memory: the copy does not
  // wait for the stream): no device-wide synchronization, so a traced launch costs the host a
  // few microseconds. The device reads the header's row capacity (word 3) and word 15; the host
  // keeps its own copy and puts it in front of the rows at read-back. Fails on launches whose
  // size does not fit the format's 32-bit fields.
  //
  // `row_capacity`: the launch's record slots per row (docs/FORMAT.md, "Row capacity"); 0 or a
  // kernel whose rows are not sized at launch: the map's max_events. `cta_stride` k > 1: rows
  // for 1 CTA in k only (header word 15), and one row header more at the end, where the CTAs
  // left out write their row ends (cutrace/device.h); only for kernels whose rows are sized at
  // launch.
  //
  // `mapped`: the buffer lives in pinned host memory mapped into the device instead
  // (CUTRACE_MAPPED=1). Every record then crosses the host link, but what was written survives a
  // device trap, after which device memory can no longer be copied back.
  //
  // `persistent`: plain cudaMalloc, never from the pool, for launches captured into a CUDA graph
  // (the graph keeps using the buffer on every replay; the caller switches the thread's capture
  // mode to relaxed around the call).
  enum class Memory { pooled, mapped, persistent };
  static Expected<DeviceBuffer> allocate(const KernelMap &map, dim3 grid, dim3 block,
                                         cudaStream_t stream, Memory memory = Memory::pooled,
                                         uint32_t row_capacity = 0, uint32_t cta_stride = 1);
  // The bytes allocate() takes for these arguments (the header's rows, and the row of the CTAs
  // left out when `cta_stride` > 1).
  static uint64_t bytes_for(const KernelMap &map, dim3 grid, dim3 block, uint32_t row_capacity,
                            uint32_t cta_stride = 1);
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&) = delete;
  ~DeviceBuffer();

  Slots *slots() const { return static_cast<Slots *>(device_); }
  int device() const { return device_index_; }
  const BufferHeader &header() const { return header_; }
  size_t bytes() const { return bytes_; }
  // Blocking copy to the host, header included; the caller has synchronized the device.
  Expected<std::vector<uint8_t>> read_back() const;
  // The compact layout (docs/FORMAT.md) of what the kernel wrote, copied on `stream` once the
  // kernel is done: first every row header (one strided copy), then each row's records up to
  // the longest row's count (a second strided copy), so the bytes moved follow the events
  // recorded, not the capacity. Blocks the calling thread only.
  // `staging`, when given, receives the copies (pinned: faster) before they are packed.
  // `guess`, when given, is how many records per row the first copy takes along with the
  // headers (one copy instead of two when no row holds more); it is set to this launch's
  // longest row, the guess for the kernel's next launch.
  Expected<std::vector<uint8_t>> read_back_compact(cudaStream_t stream,
                                                   PinnedStaging *staging = nullptr,
                                                   uint32_t *guess = nullptr) const;
  // The same into `out`, whose memory is reused (the drain's packed buffers); the error, if any.
  // `fullest`, when given, is set to the most record slots a row attempted (its end header's
  // count, stored or not): what the kernel's next launch needs.
  std::optional<std::string> read_back_compact_into(cudaStream_t stream, std::vector<uint8_t> &out,
                                                    PinnedStaging *staging = nullptr,
                                                    uint32_t *guess = nullptr,
                                                    uint32_t *fullest = nullptr) const;
  // Frees the device memory on `stream` (after the copies queued there); the object is empty.
  void release(cudaStream_t stream);

private:
  DeviceBuffer() = default;
  void *device_ = nullptr;
  size_t bytes_ = 0;
  int device_index_ = 0;
  bool pooled_ = false;
  void *host_ = nullptr;             // the mapped host allocation, when `mapped`
  uint8_t *pinned_header_ = nullptr; // what the header's copy to the device reads
  BufferHeader header_;
};

std::string cuda_error(const char *what, cudaError_t err);

} // namespace cutrace

#endif // CUTRACE_SRC_DEVICE_BUFFER_H
