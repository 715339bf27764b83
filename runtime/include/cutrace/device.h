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

__device__ __forceinline__ uint32_t smid() {
  uint32_t id;
  asm("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ uint32_t lo(uint64_t v) { return uint32_t(v); }
__device__ __forceinline__ uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }

} // namespace detail

// One row of the trace buffer per (CTA, group). RAII: the constructor writes the row's start
// header (SM id, globaltimer, clock64), the destructor its end header (event count, dropped count,
// globaltimer, clock64). Not copyable: two objects writing one row would corrupt it.
template <uint32_t MaxEvents, Clock C = Clock::clock64> class Group {
public:
  __device__ __forceinline__ Group(Slots *slots, uint32_t group_index, uint32_t num_groups,
                                   uint32_t lead) {
    const uint32_t cta = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    const uint32_t thread =
        threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    writer_ = slots != nullptr && thread == lead;
    // An integer address, so no pointer is ever formed from a null `slots`. It is the same for
    // every thread of the CTA, so it can live in uniform registers; only `writer_` differs.
    const uint64_t row = uint64_t(cta) * num_groups + group_index;
    row_ = reinterpret_cast<uint64_t>(slots) + kBufferHeaderBytes + row * kRowStride;
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    detail::store16_if(writer_, row_, kRowStartTag, detail::smid(), detail::lo(ns), detail::hi(ns));
    detail::store16_if(writer_, row_ + 16, detail::lo(clk), detail::hi(clk), cta, group_index);
  }

  __device__ __forceinline__ ~Group() {
    const uint64_t ns = detail::globaltimer();
    const uint64_t clk = detail::cycles();
    const uint32_t dropped = cursor_ > MaxEvents ? cursor_ - MaxEvents : 0;
    detail::store16_if(writer_, row_ + 32, kRowEndTag, cursor_, detail::lo(ns), detail::hi(ns));
    detail::store16_if(writer_, row_ + 48, detail::lo(clk), detail::hi(clk), dropped, 0);
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
  // BEGIN of an explicit range; the token carries what its END must repeat.
  __device__ __forceinline__ Token start(uint32_t site, int32_t payload) {
    begin(site, payload);
    return Token{site, payload};
  }
  __device__ __forceinline__ void end(Token tok) { end(tok.site, tok.payload); }

private:
  static constexpr uint64_t kRowStride = kRowHeaderBytes + uint64_t(MaxEvents) * kRecordBytes;

  __device__ __forceinline__ static uint64_t now() {
    if constexpr (C == Clock::globaltimer)
      return detail::globaltimer();
    else
      return detail::cycles();
  }

  // Keeps the first MaxEvents events; later ones only advance the cursor, so the end header
  // reports how many were attempted. No global memory is read.
  __device__ __forceinline__ void record(RecordKind kind, uint32_t site, int32_t payload) {
    const uint64_t t = now();
    const bool ok = writer_ && cursor_ < MaxEvents;
    const uint32_t head = (uint32_t(kind) << kRecordKindShift) | (site & kSiteMask);
    detail::store16_if(ok, row_ + kRowHeaderBytes + uint64_t(cursor_) * kRecordBytes, head,
                       uint32_t(payload), detail::lo(t), detail::hi(t));
    ++cursor_;
  }

  uint64_t row_;        // address of this group's row (stored to only by the writer)
  uint32_t cursor_ = 0; // events attempted so far
  bool writer_;
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

} // namespace cutrace

#endif // CUTRACE_DEVICE_H
