#include "device_buffer.h"

#include <cutrace/run.h>

#include <algorithm>

#include <atomic>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

namespace cutrace {
namespace {

struct DeviceInfo {
  uint32_t clock_khz = 0;       // 0: unknown
  cudaMemPool_t pool = nullptr; // null: the device has no stream-ordered allocator
  std::atomic<bool> reserved{false};
};

// The pool's first growth, done once, at the first recorded launch (usually a program's
// warm-up): growing a pool maps new device memory, which took milliseconds inside a timed loop
// when the first few recorded launches each grew it. The memory stays in the pool.
constexpr size_t kPoolReserve = size_t(128) << 20;

void reserve_once(DeviceInfo &info, cudaStream_t stream) {
  if (info.pool == nullptr || info.reserved.exchange(true))
    return;
  void *p = nullptr;
  if (cudaMallocFromPoolAsync(&p, kPoolReserve, info.pool, stream) == cudaSuccess)
    cudaFreeAsync(p, stream);
  (void)cudaGetLastError(); // a device too small for it simply grows the pool later
}

// Looked up once per device: the clock for the header and a memory pool of cutrace's own (the
// application's default pool and its release threshold are left alone). Buffers go back to the
// pool at flush; with the threshold at its maximum, later launches reuse that memory.
DeviceInfo &device_info(int device) {
  static std::mutex mutex;
  static std::map<int, DeviceInfo> infos;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = infos.try_emplace(device);
  if (!inserted)
    return it->second;
  DeviceInfo &info = it->second;
  // The decoder's rate of last resort for rows too short to measure (docs/FORMAT.md, word 13).
  // cudaDeviceProp::clockRate is gone in CUDA 13; the attribute remains.
  int khz = 0, pools = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess && khz > 0)
    info.clock_khz = uint32_t(khz);
  if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess &&
      pools) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    uint64_t keep = std::numeric_limits<uint64_t>::max();
    if (cudaMemPoolCreate(&info.pool, &props) != cudaSuccess ||
        cudaMemPoolSetAttribute(info.pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
      info.pool = nullptr;
  }
  (void)cudaGetLastError(); // what failed stays unknown; leave no error for the caller's check
  return info;
}

// 64-byte blocks of pinned host memory that the headers' copies to the device read from: a copy
// from pageable memory may wait for the stream, and each block must outlive its copy, so a
// block goes back to the free list only when its buffer is released (after the kernel and the
// read-back, or, for a CUDA graph's buffer, never). Blocks come 1,024 at a time.
class PinnedHeaders {
public:
  static PinnedHeaders &instance() {
    static PinnedHeaders *headers = new PinnedHeaders; // outlives the exit hooks that release
    return *headers;
  }
  uint8_t *take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
      constexpr size_t kBlocks = 1024;
      void *p = nullptr;
      if (cudaHostAlloc(&p, kBlocks * kBufferHeaderBytes, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
      }
      for (size_t i = 0; i < kBlocks; ++i)
        free_.push_back(static_cast<uint8_t *>(p) + i * kBufferHeaderBytes);
    }
    uint8_t *block = free_.back();
    free_.pop_back();
    return block;
  }
  void give(uint8_t *block) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(block);
  }

private:
  std::mutex mu_;
  std::vector<uint8_t *> free_;
};

// The row capacity a launch of `map` gets when asked for `row_capacity` (see allocate): the
// layout the kernel's device code can hold, whatever the caller asked.
uint32_t row_capacity_of(const KernelMap &map, uint32_t row_capacity) {
  if (!map.rows_sized_at_launch || row_capacity == 0)
    return map.max_events;
  return std::min(std::max(row_capacity, map.max_events), kMaxRowCapacity);
}

// The header of a launch of `map` (rows per CTA from the block size: one row per warp, ...).
BufferHeader header_of(const KernelMap &map, dim3 grid, dim3 block, uint32_t row_capacity,
                       uint32_t cta_stride) {
  const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  BufferHeader h = BufferHeader::for_launch(rows_per_cta(map, block.x * block.y * block.z),
                                            row_capacity_of(map, row_capacity), map.clock, g, b);
  if (map.rows_sized_at_launch) // the device code of the others reads no stride
    h.set_cta_stride(std::min(cta_stride, kMaxCtaStride));
  h.rows_sized_at_launch = map.rows_sized_at_launch;
  return h;
}

// The row header past the rows, where the CTAs a stride leaves out write their row ends.
uint64_t left_out_row_bytes(const BufferHeader &h) {
  return h.cta_stride > 1 ? kRowHeaderBytes : 0;
}

} // namespace

std::string cuda_error(const char *what, cudaError_t err) {
  return std::string(what) + ": " + cudaGetErrorString(err);
}

Expected<DeviceBuffer> DeviceBuffer::allocate(const KernelMap &map, dim3 grid, dim3 block,
                                              cudaStream_t stream, Memory memory,
                                              uint32_t row_capacity, uint32_t cta_stride) {
  const bool mapped = memory == Memory::mapped;
  using E = Expected<DeviceBuffer>;
  DeviceBuffer buf;
  buf.header_ = header_of(map, grid, block, row_capacity, cta_stride);
  const BufferHeader &h = buf.header_;
  // Rows per CTA follow from the block size when a group is sliced (one row per warp, ...).
  // Counted in 64 bits here: the header's 32-bit num_rows and row stride are trusted only after
  // the checks below.
  const uint32_t per_cta = h.num_groups;
  const uint64_t rows = h.recorded_ctas() * per_cta;
  const uint64_t stride = row_stride_bytes(h.max_events);
  const uint64_t extra = left_out_row_bytes(h);
  if (per_cta == 0)
    return E::failure("no row to record: every group of " + std::string(map.kernel) +
                      " is a TRACE_GROUPS group whose first thread is beyond this launch's " +
                      std::to_string(block.x * block.y * block.z) + " threads per block");
  // The device addresses records by 32-bit 8-byte slot indices (cutrace/device.h).
  if (rows > std::numeric_limits<uint32_t>::max() ||
      stride > std::numeric_limits<uint32_t>::max() ||
      rows * stride > std::numeric_limits<size_t>::max() - kBufferHeaderBytes - extra ||
      (kBufferHeaderBytes + rows * stride + extra) / kRecordBytes >
          std::numeric_limits<uint32_t>::max())
    return E::failure("launch too large to trace (" + std::to_string(rows) + " rows of " +
                      std::to_string(stride) + " bytes)");
  buf.bytes_ = size_t(kBufferHeaderBytes + rows * stride + extra); // bytes_for's figure
  if (cudaError_t err = cudaGetDevice(&buf.device_index_); err != cudaSuccess)
    return E::failure(cuda_error("cudaGetDevice", err));
  DeviceInfo &info = device_info(buf.device_index_);
  buf.header_.device_clock_khz = info.clock_khz;
  if (mapped) {
    if (cudaError_t err = cudaHostAlloc(&buf.host_, buf.bytes_, cudaHostAllocMapped);
        err != cudaSuccess) {
      buf.host_ = nullptr;
      return E::failure(cuda_error("cudaHostAlloc (mapped trace buffer)", err));
    }
    std::memset(buf.host_, 0, buf.bytes_); // before the launch is queued: nothing reads it yet
    encode_buffer_header(buf.header_, static_cast<uint8_t *>(buf.host_));
    // Header word 15 bit 0: the device stores every record straight to this memory, none staged
    // in shared memory, so a trap loses none (docs/FORMAT.md, "Buffer header"). read_back()
    // writes the header again, bit 0 clear.
    uint32_t flags = 0;
    std::memcpy(&flags, static_cast<uint8_t *>(buf.host_) + 4 * 15, sizeof flags);
    flags |= kDirectStoresFlag;
    std::memcpy(static_cast<uint8_t *>(buf.host_) + 4 * 15, &flags, sizeof flags);
    if (cudaError_t err = cudaHostGetDevicePointer(&buf.device_, buf.host_, 0); err != cudaSuccess)
      return E::failure(cuda_error("cudaHostGetDevicePointer", err));
    return E{std::move(buf), {}};
  }
  const bool pooled = info.pool != nullptr && memory == Memory::pooled;
  if (pooled)
    reserve_once(info, stream);
  cudaError_t err = pooled ? cudaMallocFromPoolAsync(&buf.device_, buf.bytes_, info.pool, stream)
                           : cudaMalloc(&buf.device_, buf.bytes_);
  if (err != cudaSuccess) {
    buf.device_ = nullptr;
    return E::failure(cuda_error("allocating the trace buffer", err));
  }
  buf.pooled_ = pooled;
  // Zeroed so that a record is recognisable as written even if the kernel never finishes.
  if (cudaError_t err = cudaMemsetAsync(buf.device_, 0, buf.bytes_, stream); err != cudaSuccess)
    return E::failure(cuda_error("cudaMemsetAsync", err));
  // The header, for the row capacity the device reads in it.
  buf.pinned_header_ = PinnedHeaders::instance().take();
  if (buf.pinned_header_ == nullptr)
    return E::failure("no pinned host memory for the trace buffer's header");
  encode_buffer_header(buf.header_, buf.pinned_header_);
  if (cudaError_t err = cudaMemcpyAsync(buf.device_, buf.pinned_header_, kBufferHeaderBytes,
                                        cudaMemcpyHostToDevice, stream);
      err != cudaSuccess)
    return E::failure(cuda_error("copying the trace buffer's header", err));
  return E{std::move(buf), {}};
}

uint64_t DeviceBuffer::bytes_for(const KernelMap &map, dim3 grid, dim3 block,
                                 uint32_t row_capacity, uint32_t cta_stride) {
  const BufferHeader h = header_of(map, grid, block, row_capacity, cta_stride);
  return h.buffer_bytes() + left_out_row_bytes(h);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : device_(other.device_), bytes_(other.bytes_), device_index_(other.device_index_),
      pooled_(other.pooled_), host_(other.host_), pinned_header_(other.pinned_header_),
      header_(other.header_) {
  other.device_ = nullptr;
  other.host_ = nullptr;
  other.pinned_header_ = nullptr;
}

DeviceBuffer::~DeviceBuffer() { release(0); }

void DeviceBuffer::release(cudaStream_t stream) {
  // Errors here (e.g. after a trap) cannot be acted on.
  if (host_ != nullptr)
    cudaFreeHost(host_);
  else if (device_ != nullptr && pooled_)
    cudaFreeAsync(device_, stream); // back to the pool for the next launch
  else if (device_ != nullptr)
    cudaFree(device_);
  host_ = device_ = nullptr;
  if (pinned_header_ != nullptr) // its copy ran before the kernel that released the buffer
    PinnedHeaders::instance().give(pinned_header_);
  pinned_header_ = nullptr;
}

PinnedStaging::~PinnedStaging() {
  outgrown_.push_back(data_);
  for (uint8_t *p : outgrown_)
    if (p != nullptr)
      cudaFreeHost(p);
}

uint8_t *PinnedStaging::reserve(size_t bytes) {
  if (bytes <= size_)
    return data_;
  if (data_ != nullptr)
    outgrown_.push_back(data_);
  data_ = nullptr;
  // Doubling keeps the outgrown blocks under the size of the current one.
  bytes = std::max({bytes, size_ * 2, size_t(1) << 22});
  size_ = 0;
  void *p = nullptr;
  if (cudaMallocHost(&p, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  data_ = static_cast<uint8_t *>(p), size_ = bytes;
  return data_;
}

namespace {

// Copies `width` bytes of each of `rows` rows (`pitch` apart on the device) into `to`, back to
// back, and waits for the copy.
std::optional<std::string> copy_rows(uint8_t *to, const uint8_t *from, size_t width, size_t pitch,
                                     uint64_t rows, cudaStream_t stream, const char *what) {
  if (width == 0 || rows == 0)
    return std::nullopt;
  cudaError_t err =
      cudaMemcpy2DAsync(to, width, from, pitch, width, rows, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return cuda_error(what, err);
  return std::nullopt;
}

// The most record slots a row attempted: the end headers' counts of `rows` row headers, `pitch`
// bytes apart.
uint32_t most_attempted(const uint8_t *row_headers, size_t pitch, uint64_t rows) {
  uint32_t most = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    uint32_t end[2]; // the end tag and the slots attempted (little endian, as the host)
    std::memcpy(end, row_headers + r * pitch + 32, sizeof end);
    if (end[0] == kRowEndTag)
      most = std::max(most, end[1]);
  }
  return most;
}

// `bytes` of pinned staging memory when there is some, else of `fallback`.
uint8_t *host_memory(PinnedStaging *staging, size_t bytes, std::vector<uint8_t> &fallback) {
  if (uint8_t *p = staging ? staging->reserve(bytes) : nullptr)
    return p;
  fallback.resize(bytes);
  return fallback.data();
}

} // namespace

Expected<std::vector<uint8_t>> DeviceBuffer::read_back_compact(cudaStream_t stream,
                                                               PinnedStaging *staging,
                                                               uint32_t *guess) const {
  std::vector<uint8_t> out;
  if (std::optional<std::string> err = read_back_compact_into(stream, out, staging, guess))
    return Expected<std::vector<uint8_t>>::failure(*err);
  return {std::move(out), {}};
}

std::optional<std::string> DeviceBuffer::read_back_compact_into(cudaStream_t stream,
                                                                std::vector<uint8_t> &out,
                                                                PinnedStaging *staging,
                                                                uint32_t *guess,
                                                                uint32_t *fullest) const {
  if (host_ != nullptr) { // mapped: the rows are in host memory already
    Expected<std::vector<uint8_t>> full = read_back();
    if (!full)
      return full.error;
    if (fullest != nullptr)
      *fullest = most_attempted(full->data() + kBufferHeaderBytes, header_.row_stride_bytes,
                                header_.num_rows);
    out = compact_buffer(full->data(), full->size());
    return std::nullopt;
  }
  const BufferHeader &h = header_;
  const uint64_t rows = h.num_rows;
  const auto *device = static_cast<const uint8_t *>(device_) + kBufferHeaderBytes;
  // First copy: every row header and the first `first` records of each row (the caller's guess,
  // the last launch's longest row), which is all of them in a steady loop: one round trip.
  const uint32_t first = std::min(guess ? *guess : 0u, h.max_events);
  const size_t first_width = kRowHeaderBytes + size_t(first) * kRecordBytes;
  std::vector<uint8_t> own_first, own_rest;
  uint8_t *head = host_memory(staging, rows * first_width, own_first);
  if (auto err = copy_rows(head, device, first_width, h.row_stride_bytes, rows, stream,
                           "copying the row headers"))
    return err;
  // A row that never closed says nothing of its count: copy up to its capacity and scan.
  uint32_t longest = 0;
  for (uint64_t r = 0; r < rows; ++r)
    longest = std::max(longest,
                       stored_records(head + r * first_width, h.max_events).value_or(h.max_events));
  if (guess != nullptr)
    *guess = longest;
  if (fullest != nullptr)
    *fullest = most_attempted(head, first_width, rows);
  if (longest <= first) {
    compact_rows_into(h, {head, first_width, head + kRowHeaderBytes, first_width, first}, out);
    return std::nullopt;
  }
  // Second copy: the records of each row up to the longest row's count. The headers move out
  // of the staging memory first, which the records reuse.
  std::vector<uint8_t> headers(rows * kRowHeaderBytes);
  for (uint64_t r = 0; r < rows; ++r)
    std::copy(head + r * first_width, head + r * first_width + kRowHeaderBytes,
              headers.data() + r * kRowHeaderBytes);
  const size_t width = size_t(longest) * kRecordBytes;
  uint8_t *records = host_memory(staging, rows * width, own_rest);
  if (auto err = copy_rows(records, device + kRowHeaderBytes, width, h.row_stride_bytes, rows,
                           stream, "copying the records"))
    return err;
  compact_rows_into(h, {headers.data(), kRowHeaderBytes, records, width, longest}, out);
  return std::nullopt;
}

Expected<std::vector<uint8_t>> DeviceBuffer::read_back() const {
  // The header and the rows; not the row the CTAs a stride left out wrote to.
  std::vector<uint8_t> host(size_t(header_.buffer_bytes()));
  if (host_ != nullptr) { // mapped: readable without the device, even after a trap
    std::memcpy(host.data(), host_, host.size());
    encode_buffer_header(header_, host.data());
    return {std::move(host), {}};
  }
  if (cudaError_t err = cudaMemcpy(host.data(), device_, host.size(), cudaMemcpyDeviceToHost);
      err != cudaSuccess)
    return Expected<std::vector<uint8_t>>::failure(cuda_error("cudaMemcpy (trace buffer)", err));
  encode_buffer_header(header_, host.data());
  return {std::move(host), {}};
}

} // namespace cutrace
