// Little-endian reads and writes on byte buffers (every cutrace format is little endian).
#ifndef CUTRACE_SRC_BYTES_H
#define CUTRACE_SRC_BYTES_H

#include <cstdint>
#include <string>
#include <vector>

namespace cutrace::bytes {

inline uint32_t u32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t u64(const uint8_t *p) { return uint64_t(u32(p)) | uint64_t(u32(p + 4)) << 32; }

inline void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
inline void put_u64(uint8_t *p, uint64_t v) {
  put_u32(p, uint32_t(v));
  put_u32(p + 4, uint32_t(v >> 32));
}

inline void append_u32(std::vector<uint8_t> &out, uint32_t v) {
  uint8_t b[4];
  put_u32(b, v);
  out.insert(out.end(), b, b + 4);
}
inline void append_u64(std::vector<uint8_t> &out, uint64_t v) {
  uint8_t b[8];
  put_u64(b, v);
  out.insert(out.end(), b, b + 8);
}

} // namespace cutrace::bytes

#endif // CUTRACE_SRC_BYTES_H
