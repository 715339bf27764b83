// A generic kernel in the style of CUTLASS's device_kernel: it builds the operator and calls it.
#pragma once
template <class Op>
__global__ void run_op(typename Op::Params params) {
  Op op;
  op(params);
}
