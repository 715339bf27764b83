// The compact recorder (CUTRACE_COMPACT=1 or 2, cutrace/device_compact.h) writes what the default
// one writes, and both write the records of docs/FORMAT.md, "Record (8 bytes)", slot for slot as
// the format's rules say. Each row's slots are compared with a model of those rules run on the
// host over the same events: every head word (a narrow RANGE's length only as long or short),
// every payload's data word, the end header's attempted and dropped counts. The events mix one-,
// two- and three-slot records, ranges of 40,000 spun cycles (long: an EXT in the narrow form) and
// empty ones, payloads that are a constant 0 and ones that vary, in rows of capacities that
// overflow in the middle of a record. Built once per recorder (the default stores,
// CUTRACE_COMPACT=1, 2), with wide RANGEs and with narrow ones, so all are held to one model:
//   nvcc -std=c++17 -O3 -arch=sm_90a -Iruntime/include [-DCUTRACE_COMPACT=1] \
//        [-DCUTRACE_NARROW_RANGES=1] test/device/compact_check.cu -o compact_check
// Prints one line per case and `compact_check: PASS` or `compact_check: FAIL` (exit status 1).
#include <cutrace/device.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#if defined(CUTRACE_NARROW_RANGES) && CUTRACE_NARROW_RANGES
constexpr bool kNarrow = true;
#else
constexpr bool kNarrow = false;
#endif

namespace {

constexpr uint32_t kRows = 4, kThreads = kRows * 32, kCtas = 2, kSpin = 40000;

__device__ void spin(uint32_t cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// What one iteration of the kernel records, in order; the host model replays it.
__host__ __device__ inline bool has_begin(int i, uint32_t warp) { return i % 4 == int(warp % 4); }
__host__ __device__ inline int32_t instant_payload(int i) { return i % 3 == 0 ? i + 1 : 0; }
__host__ __device__ inline int32_t range_payload(int i) { return i % 5 == 0 ? 0 : i * 7; }
__host__ __device__ inline bool spins(int i) { return i % 7 == 3; }

template <uint32_t M> __global__ void compact_events(cutrace::Slots *slots, int n) {
  const uint32_t warp = threadIdx.x / 32;
  cutrace::Group<M> g(slots, warp, kRows, warp * 32);
  for (int i = 0; i < n; ++i) {
    const uint32_t b = g.stamp();
    g.instant(1, instant_payload(i));
    if (has_begin(i, warp))
      g.begin(2, -i);
    g.end(2, 0);
    g.instant_if(i % 2 == 0, 3, 0);
    if (spins(i))
      spin(kSpin);
    g.range(4, b, range_payload(i)); // a payload that varies (sometimes 0)
    const uint32_t b2 = g.stamp();
    g.range(5, b2, 0); // a constant 0
  }
}

// One slot as the check compares it: the head word (a narrow RANGE's length field reduced to
// kRangeLong or 0) and the data word where it is a payload (0 where it is a time).
struct Slot {
  uint32_t head = 0, data = 0;
  bool operator==(const Slot &o) const { return head == o.head && data == o.data; }
};

struct Model {
  uint32_t max_events, cursor = 0;
  std::vector<Slot> slots;
  explicit Model(uint32_t m) : max_events(m), slots(m) {}
  void put(uint32_t at, uint32_t head, uint32_t data) {
    if (at < max_events)
      slots[at] = {head, data};
  }
  static uint32_t head(cutrace::RecordKind kind, uint32_t site) {
    return uint32_t(kind) << cutrace::kKindShift | site;
  }
  void event(cutrace::RecordKind kind, uint32_t site, int32_t payload) {
    put(cursor, head(kind, site), 0);
    if (payload != 0)
      put(cursor + 1, head(cutrace::RecordKind::payload, site), uint32_t(payload));
    cursor += 1 + (payload != 0);
  }
  void range(uint32_t site, int32_t payload, bool long_range) {
    if (!kNarrow) { // its head, then its times (compared as 0)
      put(cursor, cutrace::kRangeBit | cutrace::kWideRange | site, uint32_t(payload));
      cursor += 2;
      return;
    }
    const uint32_t length = long_range ? cutrace::kRangeLong : 0;
    put(cursor, cutrace::kRangeBit | length << cutrace::kRangeLengthShift | site, 0);
    if (long_range)
      put(cursor + 1, head(cutrace::RecordKind::ext, site), 0);
    const uint32_t p = cursor + 1 + long_range;
    if (payload != 0)
      put(p, head(cutrace::RecordKind::payload, site), uint32_t(payload));
    cursor = p + (payload != 0);
  }
};

std::vector<Slot> read_slots(const uint8_t *row, uint32_t m) {
  auto word = [](const uint8_t *p, uint32_t i) {
    uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  };
  std::vector<Slot> out(m);
  bool times = false; // the slot after a wide RANGE head holds its times only
  for (uint32_t s = 0; s < m; ++s) {
    const uint8_t *slot = row + cutrace::kRowHeaderBytes + s * 8;
    uint32_t head = word(slot, 0);
    const uint32_t data = word(slot, 1);
    if (times) {
      times = false;
      continue; // compared as {0, 0}
    }
    const bool range = head & cutrace::kRangeBit, wide = range && (head & cutrace::kWideRange);
    const bool payload =
        !range && (head >> cutrace::kKindShift) == uint32_t(cutrace::RecordKind::payload);
    if (range && !wide) { // the length as long (kRangeLong) or short (0)
      const uint32_t length = (head >> cutrace::kRangeLengthShift) & cutrace::kRangeLong;
      head =
          (head & ~(cutrace::kRangeLong << cutrace::kRangeLengthShift)) |
          (length == cutrace::kRangeLong ? cutrace::kRangeLong << cutrace::kRangeLengthShift : 0);
    }
    out[s] = {head, wide || payload ? data : 0};
    times = wide;
  }
  return out;
}

template <uint32_t M> bool check(const char *what, int n) {
  const uint64_t stride = cutrace::row_stride_bytes(M);
  const size_t bytes = cutrace::kBufferHeaderBytes + size_t(kCtas) * kRows * stride;
  void *buf = nullptr;
  cudaMalloc(&buf, bytes);
  cudaMemset(buf, 0, bytes);
  compact_events<M><<<kCtas, kThreads>>>(static_cast<cutrace::Slots *>(buf), n);
  std::vector<uint8_t> host(bytes);
  const cudaError_t err = cudaMemcpy(host.data(), buf, bytes, cudaMemcpyDeviceToHost);
  cudaFree(buf);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    return false;
  }
  uint32_t differing = 0, written = 0;
  for (uint32_t r = 0; r < kCtas * kRows; ++r) {
    const uint32_t warp = r % kRows;
    Model model(M);
    for (int i = 0; i < n; ++i) {
      model.event(cutrace::RecordKind::instant, 1, instant_payload(i));
      if (has_begin(i, warp))
        model.event(cutrace::RecordKind::begin, 2, -i);
      model.event(cutrace::RecordKind::end, 2, 0);
      if (i % 2 == 0)
        model.event(cutrace::RecordKind::instant, 3, 0);
      model.range(4, range_payload(i), spins(i));
      model.range(5, 0, false);
    }
    const uint8_t *row = host.data() + cutrace::kBufferHeaderBytes + r * stride;
    uint32_t attempted, dropped;
    std::memcpy(&attempted, row + 36, 4);
    std::memcpy(&dropped, row + 56, 4);
    const std::vector<Slot> got = read_slots(row, M);
    const uint32_t want_dropped = model.cursor > M ? model.cursor - M : 0;
    if (got != model.slots || attempted != model.cursor || dropped != want_dropped) {
      if (differing == 0)
        for (uint32_t s = 0; s < M; ++s)
          if (!(got[s] == model.slots[s])) {
            std::printf("  row %u slot %u: head %08x data %u, expected head %08x data %u "
                        "(attempted %u / %u)\n",
                        r, s, got[s].head, got[s].data, model.slots[s].head, model.slots[s].data,
                        attempted, model.cursor);
            break;
          }
      ++differing;
    }
    for (const Slot &s : got)
      written += s.head != 0;
  }
  const bool ok = differing == 0 && written > 0;
  std::printf("%s: max_events %u, %d iterations, %s ranges: %u rows, %u differing, %u records: "
              "%s\n",
              what, M, n, kNarrow ? "narrow" : "wide", kCtas * kRows, differing, written,
              ok ? "ok" : "FAIL");
  return ok;
}

} // namespace

int main() {
  bool ok = true;
  ok &= check<4096>("room for every record", 60);
  ok &= check<37>("odd capacity, overflow", 40);
  ok &= check<64>("even capacity, overflow", 40);
  ok &= check<3>("capacity 3", 5);
  ok &= check<5>("capacity 5", 5);
  ok &= check<6>("capacity 6", 5);
  std::printf("compact_check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
