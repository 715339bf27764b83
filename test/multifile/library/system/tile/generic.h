// Stands for CUTLASS's device_kernel.h: a generic kernel, without annotations, that calls into its
// operator. Copied when an instance reaches annotated code (here `apply` of the user's file, found
// by argument-dependent lookup).
#pragma once

namespace tile {
template <class Op> __global__ void device_kernel(Op op) { apply(op); }
} // namespace tile
