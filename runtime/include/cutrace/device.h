// Device-side recording, called by the code `trace-rewrite --traced` generates.
//
// One Group object per (CTA, annotated group) owns one row of the launch's trace buffer
// (docs/FORMAT.md). Only the group's writer thread stores; every other thread runs the same
// instructions with the store predicated off, so recording adds no branch to the kernel.
// Records are 8-byte slots (docs/FORMAT.md, "Record (8 bytes)"): a head word and the low 32 bits
// of the clock. An event (begin/end/instant) is: read the clock, one predicated 8-byte store, one
// register increment; a payload other than 0 adds a second slot. A scoped range is one wide RANGE
// record written where it ends (head and payload, begin and end: two 8-byte stores), its begin
// clock waiting in a register: where it begins only the clock is read. The cursor and the row
// address are members, which live in registers once inlined. The stores themselves are
// cutrace/device_compact.h's: a record's second slot at its first's address plus 8, each
// capacity test a compare with a constant.
#ifndef CUTRACE_DEVICE_H
#define CUTRACE_DEVICE_H

#if !defined(__CUDACC__)
#error "cutrace/device.h is device code: compile it with nvcc (or clang in CUDA mode)"
#endif

#include <cstdint>
#include <cutrace/device_compact.h>
#include <cutrace/device_staging.h>
#include <cutrace/map.h>

namespace cutrace {

struct Token {
  uint32_t site;
  int32_t payload;
};

namespace detail {

// One 16-byte store, performed only when `pred` holds. Written as PTX so the predicate is
// guaranteed: a C++ `if` may become a branch, which costs 3-5x more per event.
__device__ __forceinline__ void store16_if(bool pred, uint64_t addr, uint32_t a, uint32_t b,
                                           uint32_t c, uint32_t d) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.global.v4.u32 [%1], {%2, %3, %4, %5};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// One 8-byte store, performed only when `pred` holds: a record.
__device__ __forceinline__ void store8_if(bool pred, uint64_t addr, uint32_t a, uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.global.v2.u32 [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b));
}

// One 8-byte store with the evict-first hint, performed only when `pred` holds (probe 3).
__device__ __forceinline__ void store8cs_if(bool pred, uint64_t addr, uint32_t a, uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.global.cs.v2.u32 [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b));
}

// Probes 7 and 8: one 8-byte store to shared memory, performed only when `pred` holds, at slot
// `index` (modulo 128) of a 1 KiB scratch array of the kernel that nothing reads: the shape of a
// record's store without a global one.
__device__ __forceinline__ void store8_shared_if(bool pred, uint32_t index, uint32_t a,
                                                 uint32_t b) {
  __shared__ __align__(16) uint2 scratch[128];
  const uint32_t addr = uint32_t(__cvta_generic_to_shared(&scratch[index % 128]));
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.shared.v2.u32 [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "r"(addr), "r"(a), "r"(b));
}

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t cycles() { return uint64_t(clock64()); }

// The low 32 bits of the SM clock as a record stores them. CUTRACE_CLOCK_READ (a measurement
// switch, docs/recorder-designs.md): 0 (default) the low word of clock64(), 1 the 32-bit
// %clock register read by a volatile asm.
#if defined(CUTRACE_CLOCK_READ) && CUTRACE_CLOCK_READ == 1
__device__ __forceinline__ uint32_t clock32() {
  uint32_t t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
  return t;
}
__device__ __forceinline__ uint32_t clock32_if(bool pred) {
  uint32_t t;
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %1, 0;\n\t"
               "mov.u32 %0, 0;\n\t"
               "@p mov.u32 %0, %%clock;\n\t"
               "}"
               : "=r"(t)
               : "r"(uint32_t(pred)));
  return t;
}
#else
__device__ __forceinline__ uint32_t clock32() { return uint32_t(clock64()); }
#endif

// The clock, read only when `pred` holds (0 otherwise): a predicated read, not a branch, so a
// predicated marker whose condition is false costs no clock read either.
__device__ __forceinline__ uint64_t cycles_if(bool pred) {
  uint64_t t;
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %1, 0;\n\t"
               "mov.u64 %0, 0;\n\t"
               "@p mov.u64 %0, %%clock64;\n\t"
               "}"
               : "=l"(t)
               : "r"(uint32_t(pred)));
  return t;
}
__device__ __forceinline__ uint64_t globaltimer_if(bool pred) {
  uint64_t t;
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %1, 0;\n\t"
               "mov.u64 %0, 0;\n\t"
               "@p mov.u64 %0, %%globaltimer;\n\t"
               "}"
               : "=l"(t)
               : "r"(uint32_t(pred)));
  return t;
}

__device__ __forceinline__ uint32_t smid() {
  uint32_t id;
  asm("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ uint32_t lo(uint64_t v) { return uint32_t(v); }
__device__ __forceinline__ uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }

} // namespace detail

// How a group picks its writer when its lead is not a constant: `Group::lead()` at the
// declaration does.
struct LeadAtDeclaration {};

// A TRACE_GROUPS group: one row per slice of `size` threads from linear thread `first` on.
struct Slices {
  uint32_t size;
  uint32_t first;
};

__device__ __forceinline__ uint32_t cta_linear() {
  return blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
}
__device__ __forceinline__ uint32_t thread_linear() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
__device__ __forceinline__ uint32_t cta_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// One row of the trace buffer per (CTA, group), or per (CTA, slice) for a sliced group. The
// generated code constructs every group of a kernel at the kernel's entry, so a group declared in
// a loop or in several branches keeps one row and one cursor (docs/design.md, "Traced
// contract"). RAII: the constructor writes the row's start header (SM id, globaltimer, clock64),
// the destructor, at the writer thread's exit, its end header (event count, dropped count,
// globaltimer, clock64). Not copyable: two objects writing one row would corrupt it.
//
// `Sites` names where the sites of each `__device__` function the kernel reaches start in its
// decode map: a helper's twin takes the group as `G &` and writes `G::sites::<helper> + k`.
template <uint32_t MaxEvents, Clock C = Clock::clock64, class Sites = void>
class Group : private detail::StagingState<(CUTRACE_STAGING_SLOTS > 0 && MaxEvents > 0)> {

public:
  using sites = Sites;

  // A group with a constant lead: row `row` of the CTA's `rows`, written by thread `lead`.
  __device__ __forceinline__ Group(Slots *slots, uint32_t row, uint32_t rows, uint32_t lead)
      : slots_(slots) {
    const bool writer = slots != nullptr && thread_linear() == lead;
    open(row, rows, writer, writer);
  }

  // A group whose lead is chosen where it is declared (`lead()`): thread 0 writes the start
  // header, so a row nobody leads still says it started, with no records and no end.
  __device__ __forceinline__ Group(Slots *slots, uint32_t row, uint32_t rows, LeadAtDeclaration)
      : slots_(slots) {
    open(row, rows, false, slots != nullptr && thread_linear() == 0);
  }

  // A sliced group: rows `row` .. of the CTA's `rows`, one per slice, each written by the
  // slice's first thread. Threads before `first` belong to no slice and never write.
  __device__ __forceinline__ Group(Slots *slots, uint32_t row, uint32_t rows, Slices s)
      : slots_(slots) {
    const uint32_t thread = thread_linear();
    const uint32_t in_slices = thread - s.first;
    const bool writer = slots != nullptr && thread >= s.first && in_slices % s.size == 0;
    open(row + (thread >= s.first ? in_slices / s.size : 0), rows, writer, writer);
  }

  __device__ __forceinline__ ~Group() {
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    const bool writer = cursor_ < kNotWriter;
    if constexpr (kBulk) {
      // The bulk copies done, then, slot by slot, what they did not copy: the half the cursor is
      // in, or, in a row that filled up, the part of a half its end cut.
      const uint32_t half = this->mask_ >> 1;
      const uint32_t start = min(cursor_ & ~half, kCapacitySlots & ~half);
      if (writer && this->mask_ != kDirect) {
        detail::bulk_wait_all();
        const uint32_t end = min(cursor_, MaxEvents);
        const uint32_t count = end > start ? end - start : 0;
        for (uint32_t i = 0; i < count; ++i)
          detail::copy8<false>(slot(first_ + start + i),
                               this->ring_ + ((start + i) & this->mask_) * 8);
      }
    } else if constexpr (kStaged) {
      // The row's last block, partly filled, before the end header that says the row is done.
      const uint32_t start = cursor_ & ~this->mask_;
      if (writer && this->mask_ != kDirect && start < MaxEvents)
        flush(start, min(cursor_ & this->mask_, MaxEvents - start));
    }
    end_header(writer, cursor_, ns, clk, sink_);
  }

  // The declaration of a group with a computed lead: from here on, thread `lead` writes. Every
  // declaration of one name must name the same thread (two writers would share one row).
  // In a CTA a stride left out (open) no thread writes.
  __device__ __forceinline__ void lead(uint32_t lead) {
    const bool writer =
        slots_ != nullptr && thread_linear() == lead && (cursor_ & ~kNotWriter) < kLeftOut;
    cursor_ = writer ? cursor_ & ~kNotWriter : cursor_ | kNotWriter;
  }

  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;

  __device__ __forceinline__ void begin(uint32_t site, int32_t payload) {
    record(RecordKind::begin, site, payload);
  }
  // An END stores no payload: a slice's payload is its BEGIN's.
  __device__ __forceinline__ void end(uint32_t site, int32_t) { record(RecordKind::end, site, 0); }
  __device__ __forceinline__ void instant(uint32_t site, int32_t payload) {
    record(RecordKind::instant, site, payload);
  }
  // TRACE_RECORD_IF / TRACE_RANGE_IF: when `cond` is false nothing is stored and no slot is
  // used; the condition only joins the store's predicate and the cursor's increment.
  __device__ __forceinline__ void instant_if(bool cond, uint32_t site, int32_t payload) {
    record(RecordKind::instant, site, payload, cond);
  }
  __device__ __forceinline__ void begin_if(bool cond, uint32_t site, int32_t payload) {
    record(RecordKind::begin, site, payload, cond);
  }
  __device__ __forceinline__ void end_if(bool cond, uint32_t site) {
    record(RecordKind::end, site, 0, cond);
  }
  // BEGIN of an explicit range; the token carries what its END must repeat.
  __device__ __forceinline__ Token start(uint32_t site, int32_t payload) {
    begin(site, payload);
    return Token{site, payload};
  }
  __device__ __forceinline__ void end(Token tok) { end(tok.site, tok.payload); }

  // Whether this thread writes the row.
  __device__ __forceinline__ bool writes() const { return cursor_ < kNotWriter; }

  // The low 32 bits of the clock, where a scoped range begins (read only when `cond` holds).
  __device__ __forceinline__ uint32_t stamp() const {
    if constexpr (kNoClockProbe)
      return cursor_;
    return now32();
  }
  __device__ __forceinline__ uint32_t stamp_if(bool cond) const {
    if constexpr (kNoClockProbe)
      return cursor_;
#if defined(CUTRACE_CLOCK_READ) && CUTRACE_CLOCK_READ == 1
    if constexpr (C == Clock::clock64)
      return detail::clock32_if(cond);
#endif
    return detail::lo(C == Clock::globaltimer ? detail::globaltimer_if(cond)
                                              : detail::cycles_if(cond));
  }

  // The end of a scoped range that began at `begin` (stamp()), stored only when `cond` holds:
  // one wide RANGE record (docs/FORMAT.md, "Record (8 bytes)"); with CUTRACE_NARROW_RANGES a
  // narrow one (see emit).
  __device__ __forceinline__ void range(uint32_t site, uint32_t begin, int32_t payload,
                                        bool cond = true) {
    range_ended(site, begin, stamp_if(cond), payload, cond);
  }

  // A scoped range whose end was read before (`stamp()`), stored when `cond` holds: for a
  // recorder that decides only afterwards whether to keep it (cutrace/device_auto.h).
  __device__ __forceinline__ void range_ended(uint32_t site, uint32_t begin, uint32_t end,
                                              int32_t payload, bool cond) {
    if constexpr (kCompact) {
      if constexpr (kNarrowRanges)
        detail::CompactRow<kLimit>::narrow(compact_base(), compact_first(), cursor_, cond, site,
                                           payload, begin, end);
      else
        detail::CompactRow<kLimit>::wide(compact_base(), compact_first(), cursor_, cond, site,
                                         payload, begin, end);
    } else if constexpr (kNarrowRanges) {
      emit(cond, kRangeBit | (site & kSiteMask), end, begin, payload);
    } else {
      // The wide RANGE: its head and payload, then its begin and end; no test of its length or
      // payload, so the fewest instructions where it ends.
      const uint32_t c = cursor_;
      const uint32_t head = kRangeBit | kWideRange | (site & kSiteMask);
      if constexpr (kProbe == 5 || kProbe == 6) {
        sink_ ^= begin ^ end; // no store; the clocks stay live
      } else if constexpr (kProbe == 1) {
        const bool even = (c & 1u) == 0;
        detail::store16_if(cond && even && c + 1 < MaxEvents, slot(first_ + c), head,
                           uint32_t(payload), begin, end);
        detail::store8_if(cond && !even && c < MaxEvents, slot(first_ + c), head,
                          uint32_t(payload));
        detail::store8_if(cond && !even && c + 1 < MaxEvents, slot(first_ + c + 1), begin, end);
      } else if constexpr (kProbe == 2) {
        detail::store8_if(cond && c < MaxEvents, at_, head, uint32_t(payload));
        detail::store8_if(cond && c + 1 < MaxEvents, at_ + 8, begin, end);
        at_ += cond ? 16 : 0;
      } else if constexpr (kProbe == 3) {
        detail::store8cs_if(cond && c < MaxEvents, slot(first_ + c), head, uint32_t(payload));
        detail::store8cs_if(cond && c + 1 < MaxEvents, slot(first_ + c + 1), begin, end);
      } else {
        prepare(c, cond ? c + 2 : c);
        store_slot(cond && c < MaxEvents, c, 0, head, uint32_t(payload));
        store_slot(cond && c + 1 < MaxEvents, c, 1, begin, end);
        settle(c, cond ? c + 2 : c);
      }
      cursor_ = cond ? c + 2 : c;
    }
  }

  // The writer takes the row's next two slots for a wide RANGE that another thread of the row
  // stores later (store_range_at): the slots' index, as the writer's cursor counts them.
  __device__ __forceinline__ uint32_t reserve_range() {
    const uint32_t c = cursor_;
    cursor_ = c + 2;
    return c & ~kNotWriter;
  }

  // A wide RANGE at slots `c`, `c + 1` of this row (reserve_range), stored by whichever thread
  // of the row calls it, when `pred` holds and both slots are within the row.
  __device__ __forceinline__ void store_range_at(bool pred, uint32_t c, uint32_t site,
                                                 uint32_t begin, uint32_t end, int32_t payload) {
    static_assert(!kStaged, "rows stored by several threads are not staged");
    const bool fits = pred && slots_ != nullptr && c + 1 < kLimit;
    detail::store8_if(fits, slot(first_ + c), kRangeBit | kWideRange | (site & kSiteMask),
                      uint32_t(payload));
    detail::store8_if(fits, slot(first_ + c + 1), begin, end);
  }

  // The writer hands the row's end over to another thread of the row (end_row_at): its own
  // destructor then writes no end header. Returns the cursor the end header must say.
  __device__ __forceinline__ uint32_t hand_over() {
    const uint32_t c = cursor_;
    cursor_ = c | kNotWriter;
    return c & ~kNotWriter;
  }

  // The row's end header, stored by whichever thread of the row calls it, when `pred` holds:
  // `cursor` events attempted (hand_over), the time now.
  __device__ __forceinline__ void end_row_at(bool pred, uint32_t cursor) {
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    end_header(pred && slots_ != nullptr, cursor, ns, clk, 0);
  }

private:
  // The cursor counts the events a thread attempted; in threads that do not write the row it
  // starts at kNotWriter, so one unsigned compare (`cursor_ < kLimit`) is both the writer
  // test and the capacity test, and no separate flag stays live in the kernel.
  static constexpr uint32_t kNotWriter = 1u << 31;
  // Where the cursor of a CTA a stride left out starts (open): past kLimit by half of it, which
  // no row that overflowed counts to in practice (2^29 slots past its capacity).
  static constexpr uint32_t kLeftOut = kMaxRowCapacity + kMaxRowCapacity / 2;
  // CUTRACE_NARROW_RANGES=1 (a measurement switch, docs/recorder-designs.md): scoped
  // ranges as narrow 8-byte RANGE records instead of the wide 16-byte ones.
#if defined(CUTRACE_NARROW_RANGES) && CUTRACE_NARROW_RANGES
  static constexpr bool kNarrowRanges = true;
#else
  static constexpr bool kNarrowRanges = false;
#endif
  // CUTRACE_RECORDER_PROBE, a measurement switch (docs/recorder-designs.md, "Where the
  // hopper GEMM's recording cost goes"): 0 the recorder as shipped; 1 a wide RANGE at an even
  // slot as one 16-byte store; 2 a 64-bit write pointer (for kernels that record only scoped
  // ranges: instants do not advance it); 3 stores with the evict-first hint; 4 no clock read
  // (the cursor as the time); 5 no store; 6 neither; 7 no clock read, the records' stores to a
  // shared-memory scratch array instead of the buffer (detail::store8_shared_if); 8 clocks read,
  // the stores to that scratch array. 1-8 record less or differently: never for a real trace.
#ifdef CUTRACE_RECORDER_PROBE
  static constexpr int kProbe = CUTRACE_RECORDER_PROBE;
#else
  static constexpr int kProbe = 0;
#endif
  // How records are stored (docs/recorder-designs.md, "Fewer instructions per record"):
  // CUTRACE_COMPACT=2, the default, stores them with cutrace/device_compact.h (a record's second
  // slot by the store's immediate offset, capacity tests against constants); 1 the same, each
  // record addressed from the row's record 0 kept in a register pair (at_); 0 the stores before
  // (emit and range below: each slot its own address and test), the ones the staged recorder and
  // the recorder probes build on, so they select 0 when CUTRACE_COMPACT is not given. The buffer
  // is the same, slot for slot, with each.
#if defined(CUTRACE_COMPACT)
  static constexpr int kCompactMode = CUTRACE_COMPACT;
  static_assert(CUTRACE_COMPACT == 0 || (CUTRACE_STAGING_SLOTS == 0 && kProbe == 0),
                "CUTRACE_COMPACT=1 or 2 stores straight to the buffer: no staging, no recorder "
                "probe");
#else
  static constexpr int kCompactMode = CUTRACE_STAGING_SLOTS == 0 && kProbe == 0 ? 2 : 0;
#endif
  static constexpr bool kCompact = kCompactMode != 0;
  // Rows sized at launch (docs/FORMAT.md, "Row capacity"), with the default stores: the row's
  // capacity is the launch's, buffer header word 3, read once where the group starts. The
  // cursor then counts from kLimit - capacity, so the capacity test stays a compare with the
  // constant kLimit and the record's address (first_ + cursor, first_ moved back as far) costs
  // what it did: no register and no instruction more per event. The other stores (measurement
  // switches) keep MaxEvents, the map's capacity, and the host sizes their rows so.
  static constexpr bool kSizedAtLaunch = kCompactMode == 2;
  static_assert(kSizedAtLaunch == bool(CUTRACE_DETAIL_ROWS_SIZED_AT_LAUNCH),
                "cutrace/map.h and cutrace/device.h disagree on which rows are sized at launch");
  static constexpr uint32_t kLimit = kSizedAtLaunch ? kMaxRowCapacity : MaxEvents;
  static_assert(MaxEvents <= kMaxRowCapacity, "max events must be at most 2^30");
  static_assert(kCompactMode >= 0 && kCompactMode <= 2, "CUTRACE_COMPACT must be 0, 1 or 2");
  __device__ __forceinline__ uint64_t compact_base() const {
    return kCompactMode == 1 ? at_ : reinterpret_cast<uint64_t>(slots_);
  }
  __device__ __forceinline__ uint32_t compact_first() const {
    return kCompactMode == 1 ? 0 : first_;
  }
  static constexpr bool kNoClockProbe = kProbe == 4 || kProbe == 6 || kProbe == 7;
  static constexpr bool kSharedProbe = kProbe == 7 || kProbe == 8;
  static constexpr uint32_t kRowSlots = uint32_t(row_stride_bytes(MaxEvents) / kRecordBytes);
  // The staged recorder (cutrace/device_staging.h; docs/recorder-designs.md, "Staged in
  // shared memory"), off by default: measured slower than the direct stores on every program.
  // With CUTRACE_STAGING_SLOTS = S > 0 each of the CTA's first CUTRACE_STAGING_ROWS rows writes
  // its records to S + 2 slots of shared memory (S for a block of the row, 2 for a record that
  // runs past it) and copies each block to the buffer when the block is full and at the row's
  // end (the destructor, on every return; a trap loses the block in progress). Rows past them,
  // and every row of a launch in the mapped mode (buffer header word 15 bit 0, set by the host:
  // records must survive a trap), store straight to the buffer with the same instruction, a
  // generic-address store. The staging is static shared memory of the traced kernel: where the
  // launch leaves too little, the runtime runs the original kernel and says so (the twin's
  // attributes check, runtime/src/capture/twin_attributes.cpp).
  static constexpr uint32_t kStagingSlots = CUTRACE_STAGING_SLOTS;
  static constexpr uint32_t kStagingRows = CUTRACE_STAGING_ROWS;
  static constexpr bool kStaged = kStagingSlots > 0 && kProbe == 0 && !kNarrowRanges;
  static_assert(kStagingSlots == 0 || (kStagingSlots >= 8 && kStagingSlots <= 4096 &&
                                       (kStagingSlots & (kStagingSlots - 1)) == 0),
                "CUTRACE_STAGING_SLOTS must be 0 or a power of two from 8 to 4096");
  static_assert(kStagingRows <= 64, "CUTRACE_STAGING_ROWS must be 0 to 64");
  static constexpr uint32_t kStagingRowBytes = (kStagingSlots + 2) * kRecordBytes;
  static constexpr uint32_t kStagedRows = kStagingRows > 0 ? kStagingRows : 1;
#if defined(CUTRACE_STAGING_SHARED) && CUTRACE_STAGING_SHARED
  static constexpr bool kSharedStores = true;
#else
  static constexpr bool kSharedStores = false;
#endif
  // How a full block reaches the buffer (CUTRACE_STAGING_COPY): 0 the writer copies it, the
  // copy inline under the block test; 1 the same copy in a function of its own; 2 (Hopper) the
  // staging is a ring of two halves and a full half goes by one bulk copy (cp.async.bulk),
  // issued under a predicate: no branch where records are stored.
#ifdef CUTRACE_STAGING_COPY
  static constexpr int kCopy = CUTRACE_STAGING_COPY;
#else
  static constexpr int kCopy = 0;
#endif
  static constexpr bool kBulk = kCopy == 2;
  static_assert(!kBulk || !kSharedStores, "CUTRACE_STAGING_COPY=2 stores with generic addresses");
  static constexpr uint32_t kCapacitySlots = MaxEvents + (MaxEvents & 1u); // the row's slots
  static constexpr uint32_t kDirect = ~0u; // mask_ of a row that stores straight to the buffer

  __device__ __forceinline__ static uint32_t now32() {
    if constexpr (C == Clock::globaltimer)
      return detail::lo(detail::globaltimer());
    else
      return detail::clock32();
  }

  __device__ __forceinline__ static uint32_t kind_head(RecordKind kind, uint32_t site) {
    return (uint32_t(kind) << kKindShift) | (site & kSiteMask);
  }

  // The address of 8-byte slot `index` of the buffer (the 64-byte header is slots 0-7). An
  // integer, so no pointer is ever formed from a null `slots`.
  __device__ __forceinline__ uint64_t slot(uint32_t index) const {
    return reinterpret_cast<uint64_t>(slots_) + uint64_t(index) * kRecordBytes;
  }

  // Keeps the row's first records, as many as its capacity; later ones only advance the cursor, so
  // the end header reports how many were attempted. No global memory is read. A payload of 0 is not
  // stored (the decoder's default), so an annotation without one writes one record.
  __device__ __forceinline__ void record(RecordKind kind, uint32_t site, int32_t payload) {
    record_at(now32(), kind, site, payload, true);
  }
  __device__ __forceinline__ void record(RecordKind kind, uint32_t site, int32_t payload,
                                         bool cond) {
    record_at(stamp_if(cond), kind, site, payload, cond);
  }
  __device__ __forceinline__ void record_at(uint32_t t, RecordKind kind, uint32_t site,
                                            int32_t payload, bool cond) {
    if constexpr (kCompact)
      return detail::CompactRow<kLimit>::event(compact_base(), compact_first(), cursor_, cond,
                                               kind_head(kind, site), t, payload);
    emit(cond, kind_head(kind, site), t, t, payload);
  }

  // Stores one event when `cond` holds: its record (a narrow RANGE when `kind_site` has
  // kRangeBit, its length t - begin), the EXT of a long range, the PAYLOAD when `payload` is
  // not 0.
  __device__ __forceinline__ void emit(bool cond, uint32_t kind_site, uint32_t t, uint32_t begin,
                                       int32_t payload) {
    const bool is_range = (kind_site & kRangeBit) != 0;
    const uint32_t length = t - begin;
    const bool long_range = is_range && length >= kRangeLong;
    const uint32_t head =
        is_range ? kind_site | (min(length, kRangeLong) << kRangeLengthShift) : kind_site;
    const uint32_t site = kind_site & kSiteMask;
    const bool paid = payload != 0;
    const uint32_t c = cursor_;
    if constexpr (kProbe == 5 || kProbe == 6) {
      sink_ ^= t ^ begin ^ head;
      cursor_ = cond ? c + 1 + uint32_t(long_range) + uint32_t(paid) : c;
      return;
    }
    const uint32_t p = c + 1 + uint32_t(long_range);
    prepare(c, cond ? p + uint32_t(paid) : c);
    store_slot(cond && c < MaxEvents, c, 0, head, t);
    store_slot(cond && long_range && c + 1 < MaxEvents, c, 1, kind_head(RecordKind::ext, site),
               begin);
    store_slot(cond && paid && p < MaxEvents, c, p - c, kind_head(RecordKind::payload, site),
               uint32_t(payload));
    // n is formed after the stores, as before store_slot: formed first, it changed the measured
    // builds' code (the same records, other instructions).
    const uint32_t n = cond ? p + uint32_t(paid) : c;
    settle(c, n);
    cursor_ = n;
  }

  // Slot `c` + `k` of a record that starts at slot `c`, stored when `pred` holds: to the buffer,
  // to the row's staging (the staged recorder), or to the scratch array (probes 7 and 8).
  __device__ __forceinline__ void store_slot(bool pred, uint32_t c, uint32_t k, uint32_t a,
                                             uint32_t b) const {
    if constexpr (kStaged)
      put(pred, c, k, a, b);
    else if constexpr (kSharedProbe)
      detail::store8_shared_if(pred, first_ + c + k, a, b);
    else
      detail::store8_if(pred, slot(first_ + c + k), a, b);
  }

  // The staged recorder's store of slot `c` + `k` of a record that starts at slot `c`: to the
  // row's staging at c's place in the block, or to the buffer (mask_ is ~0 there), when `pred`
  // holds. One generic-address store; with CUTRACE_STAGING_SHARED=1 a store to shared memory
  // (or, in a direct row, a global one) under a branch that is the same in every thread.
  __device__ __forceinline__ void put(bool pred, uint32_t c, uint32_t k, uint32_t a,
                                      uint32_t b) const {
    // A ring (bulk copies): every slot at its own place modulo the staging. Otherwise the
    // record's slots follow its first, the last ones past the block if it ends there.
    const uint32_t i = kBulk ? (c + k) & this->mask_ : (c & this->mask_) + k;
    if constexpr (kSharedStores) {
      if (this->mask_ == kDirect)
        detail::store8_if(pred, this->ring_ + uint64_t(i) * kRecordBytes, a, b);
      else
        detail::store8_sts_if(pred, uint32_t(this->ring_) + i * kRecordBytes, a, b);
    } else {
      detail::store8_generic_if(pred, this->ring_ + uint64_t(i) * kRecordBytes, a, b);
    }
  }

  // Before a record takes slots c .. n - 1 (bulk copies): when they reach the other half of the
  // ring, the copy of that half issued a half ago must have read it.
  __device__ __forceinline__ void prepare(uint32_t c, uint32_t n) {
    if constexpr (kStaged && kBulk)
      detail::bulk_wait_read_if(cursor_ < kNotWriter && (c ^ n) > (this->mask_ >> 1));
  }

  // After a record took slots c .. n - 1: when they reached the next block, the block is full.
  // The test is the same in every thread of the row (non-writers' cursors differ only in bit 31),
  // so the branch does not diverge; only the writer copies.
  __device__ __forceinline__ void settle(uint32_t c, uint32_t n) {
    if constexpr (!kStaged) {
      return; // direct stores: nothing to copy
    } else if constexpr (kBulk) {
      // Half `c` is in is full when n is in the other: one bulk copy of it, when the whole half
      // lies in the row (the destructor copies the rest of a row that ends inside a half).
      const uint32_t half = this->mask_ >> 1;
      const uint32_t start = c & ~half;
      detail::bulk_copy_if(cursor_ < kNotWriter && (c ^ n) > half && start + half < kCapacitySlots,
                           slot(first_ + start), this->shared_ + (start & this->mask_) * 8,
                           (half + 1) * 8);
    } else if constexpr (kCopy == 1) {
      if (__builtin_expect((c ^ n) > this->mask_ && cursor_ < kNotWriter, 0)) {
        const uint32_t start = c & ~this->mask_;
        detail::copy_block<kSharedStores>(
            slot(first_ + start), this->ring_,
            start < MaxEvents ? min(this->mask_ + 1, MaxEvents - start) : 0, this->mask_ + 1,
            n & this->mask_);
      }
    } else if ((c ^ n) > this->mask_) {
      if (cursor_ < kNotWriter) {
        const uint32_t start = c & ~this->mask_;
        flush(start, start < MaxEvents ? min(this->mask_ + 1, MaxEvents - start) : 0);
        // The slots written past the block move to the staging's start, where the next block's
        // first slots belong.
        for (uint32_t i = 0; i < (n & this->mask_); ++i)
          detail::copy8<kSharedStores, kSharedStores>(
              this->ring_ + i * 8, this->ring_ + (uint64_t(this->mask_) + 1 + i) * 8);
      }
    }
  }

  // Copies the first `count` staged slots to the row's slots `start` .. (16 bytes at a time: the
  // staging and every block's place in the row are 16-byte aligned).
  __device__ __forceinline__ void flush(uint32_t start, uint32_t count) const {
    const uint64_t to = slot(first_ + start);
#pragma unroll 4
    for (uint32_t i = 0; i < count / 2; ++i)
      detail::copy16<kSharedStores>(to + i * 16, this->ring_ + i * 16);
    if (count & 1u)
      detail::copy8<kSharedStores>(to + (count - 1) * 8, this->ring_ + (count - 1) * 8);
  }

  // The staged recorder's row: staging in shared memory for the CTA's first kStagingRows rows
  // unless the host asked for direct stores (buffer header word 15 bit 0).
  __device__ __forceinline__ void open_staging(uint32_t row_in_cta) {
    this->mask_ = kDirect;
    this->ring_ = slot(first_);
    if constexpr (kStagingRows > 0) { // 0: the staged code, every row direct (a measurement)
      if (slots_ != nullptr && row_in_cta < kStagedRows &&
          (reinterpret_cast<const uint32_t *>(slots_)[15] & kDirectStoresFlag) == 0) {
        uint8_t *staging =
            detail::staging_area<kStagedRows * kStagingRowBytes>() + row_in_cta * kStagingRowBytes;
        this->mask_ = kStagingSlots - 1;
        this->ring_ = kSharedStores ? uint64_t(__cvta_generic_to_shared(staging))
                                    : reinterpret_cast<uint64_t>(staging);
        this->shared_ = uint32_t(__cvta_generic_to_shared(staging));
      }
    }
  }

  // The row's first record slot, the cursor, and the start header written by `header_writer`.
  // Slot indices are 32-bit: the host refuses buffers of 2^32 slots (32 GiB) or more. Rows are
  // 16-byte aligned (row_stride_bytes pads the records), so the headers take 16-byte stores.
  //
  // A launch that records 1 CTA in k (buffer header word 15, bits 16-31; the host's rule when
  // the pool cannot hold every CTA's rows, docs/guide.md "Row capacity") lays out rows for CTAs
  // 0, k, 2k, ... only. The CTAs left out point at the one row header past those rows and
  // count from kLeftOut in no thread's name: above every capacity, so the loops' code stays as
  // it is and stores nothing, and no header is written.
  __device__ __forceinline__ void open(uint32_t row, uint32_t rows, bool writer,
                                       bool header_writer) {
    const uint32_t cta = cta_linear();
    const uint32_t origin = kLimit - capacity();
    uint32_t place = cta * rows + row;
    bool kept = true;
    if constexpr (kSizedAtLaunch) {
      const uint32_t stride = cta_stride();
      if (stride > 1) {
        kept = cta % stride == 0;
        const uint32_t ctas = gridDim.x * gridDim.y * gridDim.z;
        place = kept ? cta / stride * rows + row : (ctas + stride - 1) / stride * rows;
      }
    }
    const uint32_t first = kBufferHeaderBytes / kRecordBytes + place * row_slots(kLimit - origin) +
                           kRowHeaderBytes / kRecordBytes;
    // Slot indices wrap modulo 2^32: first_ + cursor is first + the event's index.
    first_ = first - origin;
    cursor_ = !kept ? kLeftOut | kNotWriter : writer ? origin : origin | kNotWriter;
    header_writer = header_writer && kept;
    at_ = slot(first_);
    if constexpr (kStaged)
      open_staging(row);
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    detail::store16_if(header_writer, slot(first - 8), kRowStartTag, detail::smid(), detail::lo(ns),
                       detail::hi(ns));
    detail::store16_if(header_writer, slot(first - 6), detail::lo(clk), detail::hi(clk), cta, row);
  }

  // 1 CTA in this many records (buffer header word 15, bits 16-31; 0 means 1).
  __device__ __forceinline__ uint32_t cta_stride() const {
    return slots_ != nullptr ? reinterpret_cast<const uint32_t *>(slots_)[15] >> kCtaStrideShift
                             : 0u;
  }
  // The row's capacity in slots: the launch's (buffer header word 3) when rows are sized at
  // launch and the host wrote one, else MaxEvents. Read where the group starts and at its end.
  __device__ __forceinline__ uint32_t capacity() const {
    if constexpr (kSizedAtLaunch) {
      const uint32_t launch =
          slots_ != nullptr ? reinterpret_cast<const uint32_t *>(slots_)[3] : 0u;
      return launch != 0 && launch <= kLimit ? launch : MaxEvents;
    }
    return MaxEvents;
  }
  __device__ __forceinline__ static uint32_t row_slots(uint32_t capacity) {
    if constexpr (!kSizedAtLaunch)
      return kRowSlots;
    return uint32_t(row_stride_bytes(capacity) / kRecordBytes);
  }

  // The row's end header (docs/FORMAT.md, "Row header"), stored when `store` holds: `cursor`
  // events attempted, those past the capacity counted as dropped, the time `ns` / `clk`.
  // `cursor` is the writer's, counted from kLimit - capacity.
  __device__ __forceinline__ void end_header(bool store, uint32_t cursor, uint64_t ns, uint64_t clk,
                                             uint32_t last) const {
    const uint32_t cap = capacity();
    const uint32_t origin = kLimit - cap;
    const uint32_t attempted = (cursor & ~kNotWriter) - origin;
    const uint32_t dropped = attempted > cap ? attempted - cap : 0;
    const uint32_t first = first_ + origin;
    detail::store16_if(store, slot(first - 4), kRowEndTag, attempted, detail::lo(ns),
                       detail::hi(ns));
    detail::store16_if(store, slot(first - 2), detail::lo(clk), detail::hi(clk), dropped, last);
  }

  Slots *slots_;      // the launch's buffer (a kernel parameter: no register of its own)
  uint32_t first_;    // 8-byte slot index of this row's record 0, less kLimit - capacity
  uint32_t cursor_;   // kLimit - capacity + the slots attempted so far (+ kNotWriter in threads
                      // that do not write)
  uint64_t at_ = 0;   // probe 2: the address of the next range; CUTRACE_COMPACT=1: the address of
                      // record 0 (dead code otherwise)
  uint32_t sink_ = 0; // probes 5, 6: what would be stored, kept live (0 otherwise: the end
                      // header's last word stays 0)
};

// A range closed on every exit of the enclosing block: one RANGE record written when destroyed,
// from the begin clock kept in a register. Nothing is stored where it begins; the payload is kept
// until the end (one register; a loop counter is live there anyway in the kernels that pass one).
template <class G> class Range {
public:
  __device__ __forceinline__ Range(G &group, uint32_t site, int32_t payload)
      : group_(group), site_(site), payload_(payload), begin_(group.stamp()) {}
  // A range that begins at `begin`, a clock read before it: where the range before it ends with
  // no code between, one read can serve as that range's end and this one's begin. Generated
  // code does not use it: measured slower on the hopper GEMM (docs/recorder-designs.md,
  // "One clock at a boundary").
  __device__ __forceinline__ Range(G &group, uint32_t site, int32_t payload, uint32_t begin)
      : group_(group), site_(site), payload_(payload), begin_(begin) {}
  __device__ __forceinline__ ~Range() { group_.range(site_, begin_, payload_); }

  Range(const Range &) = delete;
  Range &operator=(const Range &) = delete;

private:
  G &group_;
  uint32_t site_;
  int32_t payload_;
  uint32_t begin_;
};

// TRACE_RANGE_IF: a scoped range stored only when `cond` held at the start; the condition is
// evaluated once, and the clock is read only when it holds. CUTRACE_RANGE_IF_BRANCH=1 (a
// measurement switch, docs/recorder-designs.md, "Recording every N-th stage"): the clock
// reads and the store under a branch on the condition instead of predicated.
template <class G> class RangeIf {
public:
  __device__ __forceinline__ RangeIf(G &group, bool cond, uint32_t site, int32_t payload)
      : group_(group), site_(site), payload_(payload), cond_(cond), begin_(begin(group, cond)) {}
  __device__ __forceinline__ ~RangeIf() {
    if constexpr (kBranch) {
      if (__builtin_expect(cond_, 0))
        group_.range(site_, begin_, payload_);
    } else {
      group_.range(site_, begin_, payload_, cond_);
    }
  }

  RangeIf(const RangeIf &) = delete;
  RangeIf &operator=(const RangeIf &) = delete;

private:
#if defined(CUTRACE_RANGE_IF_BRANCH) && CUTRACE_RANGE_IF_BRANCH
  static constexpr bool kBranch = true;
#else
  static constexpr bool kBranch = false;
#endif
  __device__ __forceinline__ static uint32_t begin(G &group, bool cond) {
    if constexpr (kBranch)
      return __builtin_expect(cond, 0) ? group.stamp() : 0;
    else
      return group.stamp_if(cond);
  }

  G &group_;
  uint32_t site_;
  int32_t payload_;
  bool cond_;
  uint32_t begin_;
};

// Groups declared together in one block (`TRACE_GROUP("producer", 0); TRACE_GROUPS("consumer",
// 128, 128);`) are all in effect after the last of them (docs/annotations.md, "Groups in effect
// together"): each thread records into the one whose row it writes, `A` (the later declared)
// before `B`. Every record runs on both with `B`'s store predicated off where `A` writes, so no
// branch is added and no pointer to a group is formed: inlined, the groups stay in registers.
// `B` may itself be a WriterOf (three groups or more); a callee's twin takes it as its group.
template <class A, class B> class WriterOf {
public:
  using sites = typename A::sites;

  __device__ __forceinline__ WriterOf(A &a, B &b) : a_(a), b_(b) {}
  WriterOf(const WriterOf &) = delete;
  WriterOf &operator=(const WriterOf &) = delete;

  __device__ __forceinline__ bool writes() const { return a_.writes() || b_.writes(); }

  __device__ __forceinline__ void instant_if(bool cond, uint32_t site, int32_t payload) {
    a_.instant_if(cond, site, payload);
    b_.instant_if(cond && !a_.writes(), site, payload);
  }
  __device__ __forceinline__ void begin_if(bool cond, uint32_t site, int32_t payload) {
    a_.begin_if(cond, site, payload);
    b_.begin_if(cond && !a_.writes(), site, payload);
  }
  __device__ __forceinline__ void end_if(bool cond, uint32_t site) {
    a_.end_if(cond, site);
    b_.end_if(cond && !a_.writes(), site);
  }
  __device__ __forceinline__ void instant(uint32_t site, int32_t payload) {
    instant_if(true, site, payload);
  }
  __device__ __forceinline__ void begin(uint32_t site, int32_t payload) {
    begin_if(true, site, payload);
  }
  __device__ __forceinline__ void end(uint32_t site, int32_t) { end_if(true, site); }
  __device__ __forceinline__ Token start(uint32_t site, int32_t payload) {
    begin(site, payload);
    return Token{site, payload};
  }
  __device__ __forceinline__ void end(Token tok) { end(tok.site, tok.payload); }

  // One clock for both: the groups of a kernel share their clock.
  __device__ __forceinline__ uint32_t stamp() const { return a_.stamp(); }
  __device__ __forceinline__ uint32_t stamp_if(bool cond) const { return a_.stamp_if(cond); }
  __device__ __forceinline__ void range(uint32_t site, uint32_t begin, int32_t payload,
                                        bool cond = true) {
    range_ended(site, begin, stamp_if(cond), payload, cond);
  }
  __device__ __forceinline__ void range_ended(uint32_t site, uint32_t begin, uint32_t end,
                                              int32_t payload, bool cond) {
    a_.range_ended(site, begin, end, payload, cond);
    b_.range_ended(site, begin, end, payload, cond && !a_.writes());
  }

  // The kernel's group `J`, for a callee that declares groups of its own (see Member).
  template <uint32_t J> __device__ __forceinline__ decltype(auto) group() {
    return a_.template group<J>();
  }

private:
  A &a_;
  B &b_;
};

// Groups declared on a kernel's call path (docs/design.md, "Traced contract"). The kernel
// constructs every group of its call graph at its entry as the bases of one `Roster`, so a callee
// that runs many times continues its row and cursor. A callee is handed the group in scope at its
// call, a `Member`: a `G` to its markers, from which `group<J>()` reaches the kernel's group `J`
// (the index its type's `sites` gives the name) by a constant offset. No pointer to a group is
// stored anywhere, so inlined code keeps the groups in registers as it does separate ones.
template <class R, uint32_t I, class G> class Member : public G {
public:
  using G::G;

  // The kernel's group `J` (its decode map's numbering).
  template <uint32_t J> __device__ __forceinline__ Member<R, J, G> &group() {
    return static_cast<Member<R, J, G> &>(static_cast<R &>(*this));
  }
};

template <uint32_t... I> struct Indices {};

template <class G, class Indices> class Roster;

// Group I is row `row[I]` of the CTA's `rows`, written as `writers` (the I-th) says.
template <class G, uint32_t... I>
class Roster<G, Indices<I...>> : public Member<Roster<G, Indices<I...>>, I, G>... {
public:
  template <class... Writers>
  __device__ __forceinline__ Roster(Slots *slots, uint32_t rows,
                                    const uint32_t (&row)[sizeof...(I)], Writers... writers)
      : Member<Roster, I, G>(slots, row[I], rows, writers)... {}

  template <uint32_t J> __device__ __forceinline__ Member<Roster, J, G> &group() { return *this; }
};

} // namespace cutrace

#endif // CUTRACE_DEVICE_H
