// Header A: the generic kernel every operator runs through, with no annotations.
#pragma once

namespace kit {

template <class Operator>
__global__ void device_kernel(typename Operator::Params params) {
  extern __shared__ char smem[];
  Operator op;
  op(params, smem);
}

} // namespace kit
