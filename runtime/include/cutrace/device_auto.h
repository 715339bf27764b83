// The ranges `trace-rewrite --traced --auto` gives a kernel without annotations (docs/auto.md):
// the life of each CTA (or warp) and sampled iterations of the body's outermost loops. They
// record into an ordinary `Group` row, so the decoder and every analysis read them as they read
// annotated ranges.
#ifndef CUTRACE_DEVICE_AUTO_H
#define CUTRACE_DEVICE_AUTO_H

#include <cutrace/device.h>

// CUTRACE_AUTO_WARP_SKIP=0 (a measurement switch, docs/auto.md "Cost"): every thread runs the
// iterations' bookkeeping, as the row's writer does; by default, with a row per CTA, only the
// warp that holds the row's writer does, and the others branch over it (with a row per warp
// every warp writes, and the branch measured slower: no branch there).
#ifndef CUTRACE_AUTO_WARP_SKIP
#define CUTRACE_AUTO_WARP_SKIP 1
#endif
// CUTRACE_AUTO_LIFE=0 (a measurement switch, docs/auto.md "Cost"): no range for the CTA's
// (warp's) life, no barrier at the entry and no count at the exit; the row and its loops stay.
#ifndef CUTRACE_AUTO_LIFE
#define CUTRACE_AUTO_LIFE 1
#endif

namespace cutrace {

namespace detail {

// What the threads of a CTA share to find the last one to leave a slice (the CTA, or a warp):
// how many have left, when the slice began, and the slots its writer reserved for the range.
template <uint32_t Slices> struct LifeState {
  uint32_t left[Slices];
  uint32_t begin[Slices];
  uint32_t at[Slices];
};

template <uint32_t Slices> __device__ __forceinline__ LifeState<Slices> &life_state() {
  __shared__ LifeState<Slices> state;
  return state;
}

} // namespace detail

// The life of a CTA (SliceThreads 0) or of each warp (SliceThreads 32) as one range of its row,
// constructed at the kernel's entry and destroyed on every return path of every thread. It
// begins when the slice's first thread enters and ends when the slice's last thread leaves,
// whichever thread that is: each thread counts itself out in shared memory (one atomic per
// group of converged lanes), and the thread that completes the count stores the range into the
// two slots the row's writer reserved when it left, then the row's end header: the row ends
// when the CTA (warp) does, so every analysis of rows reads the CTA's life. A CTA-wide barrier at
// the entry (a warp's, for warps) makes the count start at zero: every thread reaches it, no code
// has run yet.
template <class G, uint32_t SliceThreads> class Life {
  static constexpr uint32_t kSlices = SliceThreads == 0 ? 1 : 1024 / SliceThreads;
  static_assert(SliceThreads == 0 || SliceThreads == 32, "a life per CTA or per warp");

public:
  __device__ __forceinline__ Life(G &group, uint32_t site) : group_(group), site_(site) {
    if constexpr (!CUTRACE_AUTO_LIFE)
      return;
    const uint32_t thread = thread_linear();
    slice_ = SliceThreads == 0 ? 0 : thread / SliceThreads;
    first_ = SliceThreads == 0 ? thread == 0 : thread % SliceThreads == 0;
    detail::LifeState<kSlices> &s = detail::life_state<kSlices>();
    if (first_) {
      s.left[slice_] = 0;
      s.begin[slice_] = group.stamp();
    }
    if constexpr (SliceThreads == 0)
      __syncthreads();
    else
      __syncwarp(__activemask()); // at the entry: every lane of the warp
  }

  __device__ __forceinline__ ~Life() {
    if constexpr (!CUTRACE_AUTO_LIFE)
      return;
    detail::LifeState<kSlices> &s = detail::life_state<kSlices>();
    if (first_) {
      s.at[slice_] = group_.reserve_range();
      group_.hand_over(); // the row's end is the last thread's to write
    }
    __threadfence_block();
    // The lanes leaving together count themselves with one atomic: their lowest lane adds them.
    const uint32_t lanes = __activemask();
    __syncwarp(lanes);
    const uint32_t threads = cta_threads();
    const uint32_t total =
        SliceThreads == 0 ? threads : min(SliceThreads, threads - slice_ * SliceThreads);
    if ((threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) % 32 ==
        uint32_t(__ffs(lanes) - 1)) {
      const uint32_t n = __popc(lanes);
      if (atomicAdd(&s.left[slice_], n) + n == total) {
        __threadfence_block();
        const uint32_t at = s.at[slice_];
        group_.store_range_at(true, at, site_, s.begin[slice_], group_.stamp(), 0);
        group_.end_row_at(true, at + 2);
      }
    }
  }

  Life(const Life &) = delete;
  Life &operator=(const Life &) = delete;

private:
  G &group_;
  uint32_t site_;
  uint32_t slice_;
  bool first_;
};

// An outermost loop of the body: its iterations, counted from 0, each a range whose payload is
// its index. Iteration i is stored when i < First, or when i is a multiple of the smallest power
// of two p with i < First * p: every iteration of the first First, then every 2nd up to
// 2 * First, every 4th up to 4 * First, ... (First / 2 per doubling), so a loop of n iterations
// stores about First * (1 + log2(n / First) / 2) ranges and never more than
// First * (1 + (32 - log2 First) / 2) + 1. The last iteration is stored too when the rule
// skipped it: when the next loop of the body begins (its first Iteration names the loops before
// it), else at the kernel's exit, so that a row's records stay in the order of their ends.
// Constructed at the kernel's entry, with the row's writer; SliceThreads as for Life.
template <class G, uint32_t First, uint32_t SliceThreads = 0> class Loop {
  static_assert(First >= 2 && (First & (First - 1)) == 0, "First is a power of two from 2");

public:
  __device__ __forceinline__ Loop(G &group, uint32_t site)
      : group_(group), site_(site), records_(warp_writes(group)) {}

  __device__ __forceinline__ ~Loop() { flush(); }

  // The last iteration, when the rule skipped it.
  __device__ __forceinline__ void flush() {
    if (!records())
      return;
    group_.range_ended(site_, begin_, end_, int32_t(next_ - 1), !kept_);
    kept_ = true;
  }

  // Whether this thread's warp holds the row's writer: the same in every lane, so the warps
  // without one branch over each iteration's clock reads and stores, diverging nowhere.
  __device__ __forceinline__ bool records() const { return SliceThreads != 0 || records_; }

  __device__ __forceinline__ bool started() const { return next_ != 0; }

  __device__ __forceinline__ static bool sampled(uint32_t i) {
    const uint32_t octave = i / First;
    const uint32_t stride_mask = octave == 0 ? 0u : 0xffffffffu >> __clz(octave);
    return (i & stride_mask) == 0;
  }

  __device__ __forceinline__ G &group() { return group_; }

  // An iteration that began at `begin` ends now.
  __device__ __forceinline__ void ended(uint32_t begin) {
    const uint32_t i = next_++;
    const uint32_t end = group_.stamp();
    kept_ = sampled(i);
    group_.range_ended(site_, begin, end, int32_t(i), kept_);
    begin_ = begin;
    end_ = end;
  }

  Loop(const Loop &) = delete;
  Loop &operator=(const Loop &) = delete;

private:
  // At the kernel's entry, where every thread of the warp runs.
  __device__ __forceinline__ static bool warp_writes(const G &group) {
    if constexpr (CUTRACE_AUTO_WARP_SKIP && SliceThreads == 0)
      return __any_sync(__activemask(), group.writes());
    return true;
  }

  G &group_;
  uint32_t site_;
  bool records_;
  uint32_t next_ = 0;
  uint32_t begin_ = 0, end_ = 0;
  bool kept_ = true; // nothing to store at the exit (no iteration, or the last one stored)
};

// One iteration of a Loop: declared first in the loop's body, so it ends on every path out of
// the body (the end of the body, continue, break, return). The loops written before it in the
// body store their skipped last iterations when its loop begins.
template <class L, class... Earlier> class Iteration {
public:
  __device__ __forceinline__ explicit Iteration(L &loop, Earlier &...earlier) : loop_(loop) {
    if (!loop.records())
      return;
    if constexpr (sizeof...(Earlier) > 0)
      if (!loop.started())
        (earlier.flush(), ...);
    begin_ = loop.group().stamp();
  }
  __device__ __forceinline__ ~Iteration() {
    if (loop_.records())
      loop_.ended(begin_);
  }

  Iteration(const Iteration &) = delete;
  Iteration &operator=(const Iteration &) = delete;

private:
  L &loop_;
  uint32_t begin_ = 0;
};

} // namespace cutrace

#endif // CUTRACE_DEVICE_AUTO_H
