// The delta coding of launch buffers in a run file (docs/FORMAT.md, "Runs", `LNCH` flag bit 0):
// each little-endian u32 word minus the word `lag` words before it (records of the same kind and
// site sit two 16-byte records apart), zigzag, LEB128; a tail shorter than a word as it is.
// Lossless for any bytes; ~3x on recorded launches at memory speed (docs/PERFORMANCE.md).
#ifndef CUTRACE_SRC_FORMAT_DELTA_CODING_H
#define CUTRACE_SRC_FORMAT_DELTA_CODING_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cutrace::format {

inline constexpr uint32_t kDeltaLagWords = 8;

// Appends the coding of `size` bytes at `data` to `out`.
void delta_encode(const uint8_t *data, size_t size, uint32_t lag, std::vector<uint8_t> &out);
// Decodes `coded` into exactly `size` bytes; false when the coding is malformed (runs out, or
// has bytes left over).
bool delta_decode(const uint8_t *coded, size_t coded_size, size_t size, uint32_t lag,
                  std::vector<uint8_t> &out);

} // namespace cutrace::format

#endif // CUTRACE_SRC_FORMAT_DELTA_CODING_H
