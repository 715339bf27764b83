// EXPECT: 6:5: annotations in a lambda need its default capture to be by reference ([&]), so that they reach the enclosing function's group
#include <cutrace/trace.h>

__global__ void k(int *x) {
  auto step = [=](int i) {
    TRACE_RECORD("step", i);
    return i + 1;
  };
  x[threadIdx.x] = step(threadIdx.x);
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
