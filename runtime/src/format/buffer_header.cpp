// The 64-byte header at the start of every trace buffer (docs/FORMAT.md, "Buffer header").
#include <cutrace/decode.h>

#include "bytes.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cutrace {

namespace {
// Word offsets inside the header.
enum Word : uint32_t {
  kMagic = 0,
  kVersion = 1,
  kNumGroups = 2,
  kMaxEvents = 3,
  kGrid = 4,
  kBlock = 7,
  kClock = 10,
  kRowStride = 11,
  kNumRows = 12,
  kDeviceClockKhz = 13, // was reserved-zero: 0 still means "unknown"
  kLayout = 14,         // version 2
  kFlags = 15,          // bits 16-31: the CTA stride; bit 0: the device's direct stores
};
} // namespace

BufferHeader BufferHeader::for_launch(uint32_t num_groups, uint32_t max_events, Clock clock,
                                      const uint32_t grid[3], const uint32_t block[3],
                                      uint32_t version) {
  BufferHeader h;
  h.version = version;
  h.num_groups = num_groups;
  h.max_events = max_events;
  h.clock = clock;
  for (int i = 0; i < 3; ++i) {
    h.grid[i] = grid[i];
    h.block[i] = block[i];
  }
  // Callers check that these fit in 32 bits (the host runtime refuses larger launches).
  h.row_stride_bytes = uint32_t(cutrace::row_stride_bytes(max_events, version));
  h.num_rows = uint32_t(h.num_ctas() * num_groups);
  return h;
}

void BufferHeader::set_cta_stride(uint32_t stride) {
  cta_stride = std::max<uint32_t>(stride, 1);
  num_rows = uint32_t(recorded_ctas() * num_groups);
}

void encode_buffer_header(const BufferHeader &h, uint8_t out[kBufferHeaderBytes]) {
  std::memset(out, 0, kBufferHeaderBytes);
  auto put = [out](uint32_t word, uint32_t v) { bytes::put_u32(out + 4 * word, v); };
  put(kMagic, h.magic);
  put(kVersion, h.version);
  put(kNumGroups, h.num_groups);
  put(kMaxEvents, h.max_events);
  for (uint32_t i = 0; i < 3; ++i) {
    put(kGrid + i, h.grid[i]);
    put(kBlock + i, h.block[i]);
  }
  put(kClock, uint32_t(h.clock));
  put(kRowStride, h.row_stride_bytes);
  put(kNumRows, h.num_rows);
  put(kDeviceClockKhz, h.device_clock_khz);
  if (h.version >= kCompactFormatVersion)
    put(kLayout, uint32_t(h.layout));
  put(kFlags, (h.cta_stride > 1 ? h.cta_stride << kCtaStrideShift : 0) |
                  (h.rows_sized_at_launch ? kRowsSizedAtLaunchFlag : 0));
}

Expected<BufferHeader> parse_buffer_header(const uint8_t *data, size_t size) {
  using E = Expected<BufferHeader>;
  if (data == nullptr || size < kBufferHeaderBytes)
    return E::failure("buffer of " + std::to_string(size) + " bytes is shorter than its " +
                      std::to_string(kBufferHeaderBytes) + "-byte header");
  auto word = [data](uint32_t i) { return bytes::u32(data + 4 * i); };
  BufferHeader h;
  h.magic = word(kMagic);
  if (h.magic != kBufferMagic)
    return E::failure("bad buffer magic 0x" + [&] {
      char hex[9];
      std::snprintf(hex, sizeof hex, "%08X", h.magic);
      return std::string(hex);
    }() + " (expected 0x43525443 \"CTRC\")");
  h.version = word(kVersion);
  if (h.version < kFormatVersion || h.version > kRecordFormatVersion)
    return E::failure("buffer format version " + std::to_string(h.version) +
                      " is not supported (expected " + std::to_string(kFormatVersion) + " to " +
                      std::to_string(kRecordFormatVersion) + ")");
  h.num_groups = word(kNumGroups);
  h.max_events = word(kMaxEvents);
  for (uint32_t i = 0; i < 3; ++i) {
    h.grid[i] = word(kGrid + i);
    h.block[i] = word(kBlock + i);
  }
  const uint32_t clock = word(kClock);
  if (clock > uint32_t(Clock::globaltimer))
    return E::failure("unknown clock kind " + std::to_string(clock) + " in buffer header");
  h.clock = Clock(clock);
  h.row_stride_bytes = word(kRowStride);
  h.num_rows = word(kNumRows);
  h.device_clock_khz = word(kDeviceClockKhz);
  if (h.version >= kCompactFormatVersion) {
    const uint32_t layout = word(kLayout);
    if (layout > uint32_t(BufferLayout::compact))
      return E::failure("unknown buffer layout " + std::to_string(layout) + " in buffer header");
    h.layout = BufferLayout(layout);
  }
  // Bit 0 is the device's alone (the host writes the header again before a decoder sees it).
  h.cta_stride = std::max<uint32_t>(word(kFlags) >> kCtaStrideShift, 1);
  h.rows_sized_at_launch = (word(kFlags) & kRowsSizedAtLaunchFlag) != 0;
  if (h.num_groups == 0)
    return E::failure("buffer header says 0 groups per CTA");
  if (uint64_t(h.row_stride_bytes) != cutrace::row_stride_bytes(h.max_events, h.version))
    return E::failure("row stride " + std::to_string(h.row_stride_bytes) +
                      " does not match max_events " + std::to_string(h.max_events));
  if (uint64_t(h.num_rows) != h.recorded_ctas() * h.num_groups)
    return E::failure("num_rows " + std::to_string(h.num_rows) + " is not grid size " +
                      std::to_string(h.num_ctas()) +
                      (h.cta_stride > 1 ? " (1 CTA in " + std::to_string(h.cta_stride) +
                                              ": " + std::to_string(h.recorded_ctas()) + ")"
                                        : std::string()) +
                      " x " + std::to_string(h.num_groups) + " groups");
  return E{h, {}};
}

} // namespace cutrace
