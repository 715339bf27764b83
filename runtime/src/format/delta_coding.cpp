#include "delta_coding.h"

#include "bytes.h"

#include <cstring>

namespace cutrace::format {

void delta_encode(const uint8_t *data, size_t size, uint32_t lag, std::vector<uint8_t> &out) {
  const size_t words = size / 4;
  const size_t start = out.size();
  out.resize(start + words * 5 + (size - words * 4)); // a word never takes more than 5 bytes
  uint8_t *o = out.data() + start;
  for (size_t i = 0; i < words; ++i) {
    const uint32_t w = bytes::u32(data + 4 * i);
    const uint32_t prev = i >= lag ? bytes::u32(data + 4 * (i - lag)) : 0;
    const uint32_t d = w - prev;
    uint32_t z = (d << 1) ^ (0u - (d >> 31)); // zigzag of the signed difference
    while (z >= 0x80) {
      *o++ = uint8_t(z | 0x80);
      z >>= 7;
    }
    *o++ = uint8_t(z);
  }
  if (size > 4 * words) { // the tail of a size that is not a multiple of 4 (data may be null)
    std::memcpy(o, data + 4 * words, size - 4 * words);
    o += size - 4 * words;
  }
  out.resize(size_t(o - out.data()));
}

bool delta_decode(const uint8_t *coded, size_t coded_size, size_t size, uint32_t lag,
                  std::vector<uint8_t> &out) {
  // Each byte of code makes at most 4 bytes: a size beyond that is a damaged section, refused
  // before anything is allocated for it.
  if (size / 4 > coded_size)
    return false;
  out.resize(size);
  const size_t words = size / 4;
  const uint8_t *in = coded, *end = coded + coded_size;
  for (size_t i = 0; i < words; ++i) {
    uint32_t z = 0;
    for (int shift = 0;; shift += 7) {
      if (in == end || shift > 28)
        return false;
      const uint8_t b = *in++;
      z |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        break;
    }
    const uint32_t d = (z >> 1) ^ (0u - (z & 1));
    const uint32_t prev = i >= lag ? bytes::u32(out.data() + 4 * (i - lag)) : 0;
    bytes::put_u32(out.data() + 4 * i, prev + d);
  }
  const size_t tail = size - 4 * words;
  if (size_t(end - in) != tail)
    return false;
  if (tail)
    std::memcpy(out.data() + 4 * words, in, tail);
  return true;
}

} // namespace cutrace::format
