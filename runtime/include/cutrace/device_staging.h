// The staged recorder's device helpers (cutrace/device.h, Group, "The staged recorder"): records
// staged per row in shared memory and copied to the trace buffer by blocks. Measurement switches,
// off by default (docs/recorder-designs.md, "Staged in shared memory"):
//   CUTRACE_STAGING_SLOTS  slots of staging per row, a power of two from 8 to 4096; 0 (default):
//                          every record stored straight to the buffer
//   CUTRACE_STAGING_ROWS   rows per CTA that get staging (default 4); later rows store directly
//   CUTRACE_STAGING_SHARED 1: stores to the staging with st.shared instead of generic stores
//   CUTRACE_STAGING_COPY   how a full block reaches the buffer: 0 an inline copy by the writer,
//                          1 that copy out of line, 2 (sm_90) bulk copies of ring halves
// Included by cutrace/device.h only.
#ifndef CUTRACE_DEVICE_STAGING_H
#define CUTRACE_DEVICE_STAGING_H

#include <cstdint>

// The staged recorder's sizes (Group, "The staged recorder"): slots per row, 0 = records stored
// straight to the buffer; rows per CTA that get staging.
#ifndef CUTRACE_STAGING_SLOTS
#define CUTRACE_STAGING_SLOTS 0
#endif
#ifndef CUTRACE_STAGING_ROWS
#define CUTRACE_STAGING_ROWS 4
#endif

namespace cutrace {
namespace detail {

// One 8-byte store to a generic address (shared or global), performed only when `pred` holds:
// a record of the staged recorder, whose row writes to its shared-memory staging or, where it
// has none, straight to the buffer, with the same instruction.
__device__ __forceinline__ void store8_generic_if(bool pred, uint64_t addr, uint32_t a,
                                                  uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.v2.u32 [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b));
}

// Copies of the staged recorder, as volatile asm so that they stay in order with the record
// stores (volatile asm too, which the compiler does not see as touching memory). `from` is a
// generic address, or with FromShared a shared-memory one; `to` a generic one, or with ToShared
// a shared-memory one.
template <bool FromShared, bool ToShared = false>
__device__ __forceinline__ void copy8(uint64_t to, uint64_t from) {
  if constexpr (FromShared && ToShared)
    asm volatile(
        "{\n\t.reg .b32 a, b;\n\t"
        "ld.shared.v2.u32 {a, b}, [%1];\n\tst.shared.v2.u32 [%0], {a, b};\n\t}" ::"r"(uint32_t(to)),
        "r"(uint32_t(from)));
  else if constexpr (FromShared)
    asm volatile("{\n\t.reg .b32 a, b;\n\t"
                 "ld.shared.v2.u32 {a, b}, [%1];\n\tst.v2.u32 [%0], {a, b};\n\t}" ::"l"(to),
                 "r"(uint32_t(from)));
  else
    asm volatile("{\n\t.reg .b32 a, b;\n\t"
                 "ld.v2.u32 {a, b}, [%1];\n\tst.v2.u32 [%0], {a, b};\n\t}" ::"l"(to),
                 "l"(from));
}
template <bool FromShared> __device__ __forceinline__ void copy16(uint64_t to, uint64_t from) {
  if constexpr (FromShared)
    asm volatile(
        "{\n\t.reg .b32 a, b, c, d;\n\t"
        "ld.shared.v4.u32 {a, b, c, d}, [%1];\n\tst.v4.u32 [%0], {a, b, c, d};\n\t}" ::"l"(to),
        "r"(uint32_t(from)));
  else
    asm volatile("{\n\t.reg .b32 a, b, c, d;\n\t"
                 "ld.v4.u32 {a, b, c, d}, [%1];\n\tst.v4.u32 [%0], {a, b, c, d};\n\t}" ::"l"(to),
                 "l"(from));
}

// One 8-byte store to shared memory (a 32-bit shared address), performed only when `pred` holds.
__device__ __forceinline__ void store8_sts_if(bool pred, uint32_t addr, uint32_t a, uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p st.shared.v2.u32 [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "r"(addr), "r"(a), "r"(b));
}

// The staged recorder's shared memory: one array per kernel (every Group of the kernel calls
// this one instantiation), split into equal per-row parts by the row's place in the CTA.
template <uint32_t Bytes> __device__ __forceinline__ uint8_t *staging_area() {
  __shared__ __align__(16) uint8_t area[Bytes];
  return area;
}

// The staged recorder's copy of a full block, out of line (CUTRACE_STAGING_COPY=1): the writer
// copies `count` slots from its staging `ring` to the row's slots from `to` on, then moves the
// `over` slots written past the block (staged at ring + slots) to the staging's start. Values
// only, so the group stays in registers.
template <bool Shared>
__device__ __noinline__ void copy_block(uint64_t to, uint64_t ring, uint32_t count, uint32_t slots,
                                        uint32_t over) {
  for (uint32_t i = 0; i < count / 2; ++i)
    copy16<Shared>(to + i * 16, ring + i * 16);
  if (count & 1u)
    copy8<Shared>(to + (count - 1) * 8, ring + (count - 1) * 8);
  for (uint32_t i = 0; i < over; ++i)
    copy8<Shared, Shared>(ring + i * 8, ring + (uint64_t(slots) + i) * 8);
}

// CUTRACE_STAGING_COPY=2 (Hopper, sm_90): when `pred` holds, wait until the bulk copies this
// thread issued have read their shared memory (before a half of the staging is written again).
// No memory clobber: the staging's stores and copies are volatile asm, which stay in order.
__device__ __forceinline__ void bulk_wait_read_if(bool pred) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p cp.async.bulk.wait_group.read 0;\n\t"
               "}" ::"r"(uint32_t(pred)));
#endif
}
// When `pred` holds, copy `bytes` (a multiple of 16) of shared memory at `from` to global
// memory at `to` with one bulk copy, after the fence that shows this thread's stores to it.
__device__ __forceinline__ void bulk_copy_if(bool pred, uint64_t to, uint32_t from,
                                             uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p fence.proxy.async.shared::cta;\n\t"
               "@p cp.async.bulk.global.shared::cta.bulk_group [%1], [%2], %3;\n\t"
               "@p cp.async.bulk.commit_group;\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(to), "r"(from), "r"(bytes));
#endif
}
// Until every bulk copy this thread issued is complete.
__device__ __forceinline__ void bulk_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

#if defined(CUTRACE_STAGING_COPY) && CUTRACE_STAGING_COPY == 2 && defined(__CUDA_ARCH__) &&        \
    __CUDA_ARCH__ < 900
#error "CUTRACE_STAGING_COPY=2 (bulk copies) needs sm_90 or later"
#endif

// What the staged recorder keeps per row (Group's base: nothing without staging, so the direct
// recorder's objects and code stay as they were).
template <bool Staged> struct StagingState {
  uint64_t ring_ = 0;   // the row's staging (generic address), or its record 0 (direct)
  uint32_t mask_ = 0;   // slots per block - 1, or ~0 (direct)
  uint32_t shared_ = 0; // CUTRACE_STAGING_COPY=2: the staging's shared-memory address
};
template <> struct StagingState<false> {};

} // namespace detail
} // namespace cutrace

#endif // CUTRACE_DEVICE_STAGING_H
