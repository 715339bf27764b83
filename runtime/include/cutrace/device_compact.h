// How cutrace/device.h (Group) stores records, by default (CUTRACE_COMPACT=2; 1 and 0 are
// measurement switches, docs/recorder-designs.md, "Fewer instructions per record"). The
// records are those of format version 3 (docs/FORMAT.md, "Record (8 bytes)"), the same slot for
// slot as the earlier stores wrote (CUTRACE_COMPACT=0), with fewer instructions per event:
//   - a record's second slot (PAYLOAD, EXT, a wide RANGE's times) is addressed by the store's
//     immediate offset, [a + 8], not by an address of its own;
//   - the capacity tests compare the cursor with constants (`c < MaxEvents`, `c < MaxEvents - 1`),
//     no `c + 1` is formed; a record split by the row's end keeps its first slot;
//   - the record's address a is the buffer (a kernel parameter) plus (the row's first slot +
//     cursor) * 8, as before; with CUTRACE_COMPACT=1, the row's record 0 kept as a 64-bit address
//     plus cursor * 8 (one instruction fewer, two registers more live across the kernel's loops:
//     slower on the SGEMM measured).
#ifndef CUTRACE_DEVICE_COMPACT_H
#define CUTRACE_DEVICE_COMPACT_H

#include <cstdint>
#include <cutrace/map.h>

// CUTRACE_EVICT_FIRST=1, a measurement switch: the records' stores with the evict-first hint
// (`st.global.cs`), so they take no L2 space the kernel's own data would keep. No measurable
// effect on the hopper GEMM or the SGEMM (docs/recorder-designs.md, "One clock at a
// boundary").
#if defined(CUTRACE_EVICT_FIRST) && CUTRACE_EVICT_FIRST
#define CUTRACE_DETAIL_STORE8 "st.global.cs.v2.u32"
#else
#define CUTRACE_DETAIL_STORE8 "st.global.v2.u32"
#endif

namespace cutrace::detail {

// Slots `addr` (when `p0` holds) and `addr + 8` (when `p1` holds), written as PTX so both stay
// predicated stores and the second takes the first's address with an immediate offset.
__device__ __forceinline__ void store8x2_if(bool p0, bool p1, uint64_t addr, uint32_t a, uint32_t b,
                                            uint32_t c, uint32_t d) {
  asm volatile("{\n\t"
               ".reg .pred p, q;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "setp.ne.u32 q, %1, 0;\n\t"
               "@p " CUTRACE_DETAIL_STORE8 " [%2], {%3, %4};\n\t"
               "@q " CUTRACE_DETAIL_STORE8 " [%2+8], {%5, %6};\n\t"
               "}" ::"r"(uint32_t(p0)),
               "r"(uint32_t(p1)), "l"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// One 8-byte slot when `pred` holds (the PAYLOAD of a narrow RANGE after its EXT).
__device__ __forceinline__ void store8_at_if(bool pred, uint64_t addr, uint32_t a, uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p " CUTRACE_DETAIL_STORE8 " [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b));
}

// A record that does not fit the first part of a row sized at launch, stored in the row's ring
// (cutrace/map.h, ring_cells; docs/FORMAT.md, "When a row fills") as one two-slot cell {w0, w1},
// {w2, w3}. `c` is the writer's cursor, counted from `limit` - the first part's slots: the first
// record here has c within kRingMargin of `limit`, and each one after it Limit + 2 * (its cell
// count). Reads the launch's capacity (buffer header word 3; `fallback` when it is 0 or above
// `limit`) and returns the cursor after the record. Inlined where a record overflows: a call in
// a kernel's loop would make ptxas serialize its wgmma.
__device__ __forceinline__ uint32_t ring_store(uint64_t base, uint32_t first, uint32_t c,
                                               uint32_t limit, uint32_t fallback, uint32_t w0,
                                               uint32_t w1, uint32_t w2, uint32_t w3) {
  // The marks let cutrace-nvcc --cutrace-cost leave this branch out of a loop's count.
  asm volatile("// cutrace-cold-begin");
  const uint32_t word3 = reinterpret_cast<const uint32_t *>(base)[3];
  const uint32_t capacity = word3 != 0 && word3 <= limit ? word3 : fallback;
  const uint32_t cells = ring_cells(capacity);
  const uint32_t written = c < limit ? 0 : (c - limit) / 2; // cells before this one
  if (cells != 0) {
    // Slot first + c holds the cursor's slot c, so the first part's end (the ring's cell 0) is
    // at first + limit.
    const uint64_t at = base + uint64_t(first + limit + 2 * (written & (cells - 1))) * 8;
    store8x2_if(true, true, at, w0, w1, w2, w3);
  }
  asm volatile("// cutrace-cold-end");
  return limit + 2 * written + 2;
}

// The records of one row: record slot i is at `base` + (`first` + i) * 8, and `cursor` counts the
// slots attempted (bit 31 set in threads that do not write: the capacity test is the writer test
// too). With `Ring` (rows sized at launch: MaxEvents is then kMaxRowCapacity, and the cursor
// counts from it less the first part's slots), a record at or past the first part's last
// kRingMargin slots also goes to the ring (ring_store): one more compare and branch, not taken
// until the row fills. The first part's stores stay as they are, so such a record may leave a
// partial copy at that part's end, which the decoder skips.
template <uint32_t MaxEvents, bool Ring = false, uint32_t Fallback = MaxEvents> struct CompactRow {
  // Whether the record at cursor `c` goes to the ring (never in threads that do not write: their
  // cursor is negative as an int).
  __device__ __forceinline__ static bool to_ring(bool cond, uint32_t c) {
    return Ring && cond && int32_t(c) >= int32_t(MaxEvents - kRingMargin);
  }
  __device__ __forceinline__ static uint32_t ring(uint64_t base, uint32_t first, uint32_t c,
                                                  uint32_t w0, uint32_t w1, uint32_t w2,
                                                  uint32_t w3) {
    return ring_store(base, first, c, MaxEvents, Fallback, w0, w1, w2, w3);
  }

  // Whether slots c and c + 1 are both below the capacity: one compare with a constant.
  __device__ __forceinline__ static bool two_fit(uint32_t c) {
    return MaxEvents > 1 && c < MaxEvents - 1;
  }
  __device__ __forceinline__ static uint64_t at(uint64_t base, uint32_t first, uint32_t c) {
    return base + uint64_t(first + c) * 8;
  }

  __device__ __forceinline__ static uint32_t head(RecordKind kind, uint32_t site) {
    return (uint32_t(kind) << kKindShift) | (site & kSiteMask);
  }

  // BEGIN, END or INSTANT {head, t}, then its PAYLOAD when `payload` is not 0. A constant 0, as
  // the generated code passes for an annotation without one, leaves a store whose predicate is
  // constant false, which ptxas removes (as it does for the default stores).
  __device__ __forceinline__ static void event(uint64_t base, uint32_t first, uint32_t &cursor,
                                               bool cond, uint32_t kind_site, uint32_t t,
                                               int32_t payload) {
    const uint32_t c = cursor;
    const bool paid = payload != 0;
    store8x2_if(cond && c < MaxEvents, cond && paid && two_fit(c), at(base, first, c), kind_site, t,
                head(RecordKind::payload, kind_site), uint32_t(payload));
    cursor = cond ? c + 1 + uint32_t(paid) : c;
    if (__builtin_expect(to_ring(cond, c), 0)) // a cell with no PAYLOAD holds 0 in its second slot
      cursor = ring(base, first, c, kind_site, t, paid ? head(RecordKind::payload, kind_site) : 0,
                    paid ? uint32_t(payload) : 0);
  }

  // A wide RANGE {head, payload}, {begin, end}; at the row's end its head may fit without its
  // times (the decoder reports such a range as cut).
  __device__ __forceinline__ static void wide(uint64_t base, uint32_t first, uint32_t &cursor,
                                              bool cond, uint32_t site, int32_t payload,
                                              uint32_t begin, uint32_t end) {
    const uint32_t c = cursor;
    store8x2_if(cond && c < MaxEvents, cond && two_fit(c), at(base, first, c),
                kRangeBit | kWideRange | (site & kSiteMask), uint32_t(payload), begin, end);
    cursor = cond ? c + 2 : c;
    if (__builtin_expect(to_ring(cond, c), 0))
      cursor = ring(base, first, c, kRangeBit | kWideRange | (site & kSiteMask), uint32_t(payload),
                    begin, end);
  }

  // A narrow RANGE {head with its length, end}; its EXT {begin} when it lasted kRangeLong ticks
  // or more; its PAYLOAD when `payload` is not 0 (with a constant 0: one record, one more
  // predicated store for a long one).
  __device__ __forceinline__ static void narrow(uint64_t base, uint32_t first, uint32_t &cursor,
                                                bool cond, uint32_t site, int32_t payload,
                                                uint32_t begin, uint32_t end) {
    const uint32_t c = cursor;
    const uint32_t length = end - begin;
    const bool long_range = length >= kRangeLong;
    const bool paid = payload != 0;
    const uint32_t kind_site = kRangeBit | (site & kSiteMask);
    const uint64_t a = at(base, first, c);
    store8x2_if(cond && c < MaxEvents, cond && long_range && two_fit(c), a,
                kind_site | (min(length, kRangeLong) << kRangeLengthShift), end,
                head(RecordKind::ext, site), begin);
    const uint32_t p = c + 1 + uint32_t(long_range);
    store8_at_if(cond && paid && p < MaxEvents, a + (long_range ? 16 : 8),
                 head(RecordKind::payload, site), uint32_t(payload));
    cursor = cond ? p + uint32_t(paid) : c;
    if (__builtin_expect(to_ring(cond, c), 0)) // in the ring as a wide RANGE: one cell
      cursor = ring(base, first, c, kRangeBit | kWideRange | (site & kSiteMask), uint32_t(payload),
                    begin, end);
  }
};

} // namespace cutrace::detail

#endif // CUTRACE_DEVICE_COMPACT_H
