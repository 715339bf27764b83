// Device-side recording, called by the code `trace-rewrite --traced` generates.
//
// One Group object per (CTA, annotated group) owns one row of the launch's trace buffer
// (docs/FORMAT.md). Only the group's writer thread stores; every other thread runs the same
// instructions with the store predicated off, so recording adds no branch to the kernel.
// The hot path (begin/end/instant) is: read the clock, one predicated 16-byte store, one register
// increment. The cursor and the row address are members, which live in registers once inlined.
#ifndef CUTRACE_DEVICE_H
#define CUTRACE_DEVICE_H

#if !defined(__CUDACC__)
#error "cutrace/device.h is device code: compile it with nvcc (or clang in CUDA mode)"
#endif

#include <cstdint>
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

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t cycles() { return uint64_t(clock64()); }

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
template <uint32_t MaxEvents, Clock C = Clock::clock64, class Sites = void> class Group {
  static_assert(MaxEvents < (1u << 31), "max events must be below 2^31");

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
    const uint32_t dropped = cursor_ > MaxEvents ? cursor_ - MaxEvents : 0;
    detail::store16_if(writer, slot(first_ - 2), kRowEndTag, cursor_, detail::lo(ns),
                       detail::hi(ns));
    detail::store16_if(writer, slot(first_ - 1), detail::lo(clk), detail::hi(clk), dropped, 0);
  }

  // The declaration of a group with a computed lead: from here on, thread `lead` writes. Every
  // declaration of one name must name the same thread (two writers would share one row).
  __device__ __forceinline__ void lead(uint32_t lead) {
    const bool writer = slots_ != nullptr && thread_linear() == lead;
    cursor_ = writer ? cursor_ & ~kNotWriter : cursor_ | kNotWriter;
  }

  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;

  __device__ __forceinline__ void begin(uint32_t site, int32_t payload) {
    record(RecordKind::begin, site, payload);
  }
  __device__ __forceinline__ void end(uint32_t site, int32_t payload) {
    record(RecordKind::end, site, payload);
  }
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

private:
  // The cursor counts the events a thread attempted; in threads that do not write the row it
  // starts at kNotWriter, so one unsigned compare (`cursor_ < MaxEvents`) is both the writer
  // test and the capacity test, and no separate flag stays live in the kernel.
  static constexpr uint32_t kNotWriter = 1u << 31;
  static constexpr uint32_t kRowSlots = (kRowHeaderBytes + MaxEvents * kRecordBytes) / 16;

  __device__ __forceinline__ static uint64_t now() {
    if constexpr (C == Clock::globaltimer)
      return detail::globaltimer();
    else
      return detail::cycles();
  }

  // The address of 16-byte slot `index` of the buffer (the 64-byte header is slots 0-3). An
  // integer, so no pointer is ever formed from a null `slots`.
  __device__ __forceinline__ uint64_t slot(uint32_t index) const {
    return reinterpret_cast<uint64_t>(slots_) + uint64_t(index) * 16;
  }

  // Keeps the first MaxEvents events; later ones only advance the cursor, so the end header
  // reports how many were attempted. No global memory is read.
  __device__ __forceinline__ void record(RecordKind kind, uint32_t site, int32_t payload) {
    const uint64_t t = now();
    const uint32_t head = (uint32_t(kind) << kRecordKindShift) | (site & kSiteMask);
    detail::store16_if(cursor_ < MaxEvents, slot(first_ + cursor_), head, uint32_t(payload),
                       detail::lo(t), detail::hi(t));
    ++cursor_;
  }
  __device__ __forceinline__ void record(RecordKind kind, uint32_t site, int32_t payload,
                                         bool cond) {
    const uint64_t t =
        C == Clock::globaltimer ? detail::globaltimer_if(cond) : detail::cycles_if(cond);
    const uint32_t head = (uint32_t(kind) << kRecordKindShift) | (site & kSiteMask);
    detail::store16_if(cond && cursor_ < MaxEvents, slot(first_ + cursor_), head, uint32_t(payload),
                       detail::lo(t), detail::hi(t));
    cursor_ += uint32_t(cond);
  }

  // The row's first record slot, the cursor, and the start header written by `header_writer`.
  // Slot indices are 32-bit: the host refuses buffers of 2^32 slots (64 GiB) or more.
  __device__ __forceinline__ void open(uint32_t row, uint32_t rows, bool writer,
                                       bool header_writer) {
    const uint32_t cta = cta_linear();
    first_ = kBufferHeaderBytes / 16 + (cta * rows + row) * kRowSlots + kRowHeaderBytes / 16;
    cursor_ = writer ? 0 : kNotWriter;
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    detail::store16_if(header_writer, slot(first_ - 4), kRowStartTag, detail::smid(),
                       detail::lo(ns), detail::hi(ns));
    detail::store16_if(header_writer, slot(first_ - 3), detail::lo(clk), detail::hi(clk), cta, row);
  }

  Slots *slots_;    // the launch's buffer (a kernel parameter: no register of its own)
  uint32_t first_;  // slot index of this row's record 0
  uint32_t cursor_; // events attempted so far (+ kNotWriter in threads that do not write)
};

// A range closed on every exit of the enclosing block: BEGIN now, END when destroyed. The END
// record carries no payload (the decoder takes the BEGIN's), so nothing but the site is kept
// live across the range: a traced kernel keeps its register count close to the stripped one.
template <class G> class Range {
public:
  __device__ __forceinline__ Range(G &group, uint32_t site, int32_t payload)
      : group_(group), site_(site) {
    group_.begin(site_, payload);
  }
  __device__ __forceinline__ ~Range() { group_.end(site_, 0); }

  Range(const Range &) = delete;
  Range &operator=(const Range &) = delete;

private:
  G &group_;
  uint32_t site_;
};

// TRACE_RANGE_IF: a scoped range whose BEGIN and END are stored only when `cond` held at the
// start; the condition is evaluated once.
template <class G> class RangeIf {
public:
  __device__ __forceinline__ RangeIf(G &group, bool cond, uint32_t site, int32_t payload)
      : group_(group), site_(site), cond_(cond) {
    group_.begin_if(cond_, site_, payload);
  }
  __device__ __forceinline__ ~RangeIf() { group_.end_if(cond_, site_); }

  RangeIf(const RangeIf &) = delete;
  RangeIf &operator=(const RangeIf &) = delete;

private:
  G &group_;
  uint32_t site_;
  bool cond_;
};

} // namespace cutrace

#endif // CUTRACE_DEVICE_H
