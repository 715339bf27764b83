// __COUNTER__ and __LINE__ in annotated functions (written there and through macros) and in
// functions without annotations after them, some after a #line of the file's own: the traced
// build's twins copy the annotated code, and no function keeps a value other than the plain
// build's (each copy writes what its original got). Stripped, the machine code is the
// never-annotated file's.
#include <cutrace/trace.h>

#define CTR_CAT2(a, b) a##b
#define CTR_CAT(a, b) CTR_CAT2(a, b)
#define CTR_UNIQUE(name) CTR_CAT(name, __COUNTER__)
#define CTR_ID(x) x

__device__ __noinline__ int before(int v) { return v + __COUNTER__; }

__device__ __noinline__ int helper(int *x, int v) {
  TRACE_RANGE("helper");
  int CTR_UNIQUE(t) = v + __COUNTER__;
  x[4] = CTR_ID(
      __COUNTER__);
  return v * 2 + __COUNTER__;
}

__global__ void annotated(int *x) {
  TRACE_RANGE("kernel");
  x[0] = __COUNTER__;
  x[1] = helper(x, CTR_ID(__COUNTER__)) + before(1);
}

#line 500 "gen.y"
__device__ __noinline__ int after(int v) { return v + __COUNTER__ + __LINE__; }

__global__ void plain_after(int *x) {
  x[0] = __COUNTER__;
  x[1] = __LINE__;
  x[2] = (int)sizeof(__FILE__);
  x[3] = after(CTR_ID(__COUNTER__));
  int CTR_UNIQUE(u) = 7;
  x[5] = __COUNTER__;
}
