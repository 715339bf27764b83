#include "device_buffer.h"

#include <limits>

namespace cutrace {

std::string cuda_error(const char *what, cudaError_t err) {
  return std::string(what) + ": " + cudaGetErrorString(err);
}

Expected<DeviceBuffer> DeviceBuffer::allocate(const KernelMap &map, dim3 grid, dim3 block,
                                              cudaStream_t stream) {
  using E = Expected<DeviceBuffer>;
  const uint64_t ctas = uint64_t(grid.x) * grid.y * grid.z;
  const uint64_t rows = ctas * map.num_groups;
  const uint64_t stride = row_stride_bytes(map.max_events);
  if (map.num_groups == 0 || rows > std::numeric_limits<uint32_t>::max() ||
      stride > std::numeric_limits<uint32_t>::max() ||
      rows * stride > std::numeric_limits<size_t>::max() - kBufferHeaderBytes)
    return E::failure("launch too large to trace (" + std::to_string(rows) + " rows of " +
                      std::to_string(stride) + " bytes)");
  const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};

  DeviceBuffer buf;
  buf.header_ = BufferHeader::for_launch(map.num_groups, map.max_events, map.clock, g, b);
  buf.bytes_ = size_t(buf.header_.buffer_bytes());
  if (cudaError_t err = cudaGetDevice(&buf.device_index_); err != cudaSuccess)
    return E::failure(cuda_error("cudaGetDevice", err));
  // The decoder's rate of last resort for rows too short to measure (docs/FORMAT.md, word 13).
  // cudaDeviceProp::clockRate is gone in CUDA 13; the attribute remains.
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, buf.device_index_) == cudaSuccess &&
      khz > 0)
    buf.header_.device_clock_khz = uint32_t(khz);
  else
    (void)cudaGetLastError(); // unknown stays 0; do not leave the error for the caller's check
  buf.header_bytes_.reset(new uint8_t[kBufferHeaderBytes]);
  encode_buffer_header(buf.header_, buf.header_bytes_.get());
  if (cudaError_t err = cudaMalloc(&buf.device_, buf.bytes_); err != cudaSuccess) {
    buf.device_ = nullptr;
    return E::failure(cuda_error("cudaMalloc", err));
  }
  // Zeroed so that a record is recognisable as written even if the kernel never finishes.
  if (cudaError_t err = cudaMemsetAsync(buf.device_, 0, buf.bytes_, stream); err != cudaSuccess)
    return E::failure(cuda_error("cudaMemsetAsync", err));
  if (cudaError_t err = cudaMemcpyAsync(buf.device_, buf.header_bytes_.get(), kBufferHeaderBytes,
                                        cudaMemcpyHostToDevice, stream);
      err != cudaSuccess)
    return E::failure(cuda_error("cudaMemcpyAsync", err));
  return E{std::move(buf), {}};
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : device_(other.device_), bytes_(other.bytes_), device_index_(other.device_index_),
      header_(other.header_), header_bytes_(std::move(other.header_bytes_)) {
  other.device_ = nullptr;
}

DeviceBuffer::~DeviceBuffer() {
  if (device_ != nullptr)
    cudaFree(device_); // errors here (e.g. after a trap) cannot be acted on
}

Expected<std::vector<uint8_t>> DeviceBuffer::read_back() const {
  std::vector<uint8_t> host(bytes_);
  if (cudaError_t err = cudaMemcpy(host.data(), device_, bytes_, cudaMemcpyDeviceToHost);
      err != cudaSuccess)
    return Expected<std::vector<uint8_t>>::failure(cuda_error("cudaMemcpy (trace buffer)", err));
  return {std::move(host), {}};
}

} // namespace cutrace
