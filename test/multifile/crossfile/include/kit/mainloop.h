// The primary template the two mainloop headers specialize partially, as CUTLASS's
// CollectiveMma is specialized per dispatch policy in a header of its own each.
#pragma once

namespace kit {
template <int Stages> struct PlainPolicy {};
template <int Stages> struct Fp8Policy {};
template <class Policy> struct Mainloop;
} // namespace kit
