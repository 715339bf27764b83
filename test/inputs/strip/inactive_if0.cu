// Strip rule: annotations inside `#if 0` are stripped too (raw token stream, not one
// preprocessed view).
#include <cstdio>
#include <cutrace/trace.h>
#define VERBOSE 0

__global__ void count(const int *x, int *hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if 0
  // an old debugging path nobody compiles
  TRACE_RECORD("debug", i);
  printf("thread %d\n", i); TRACE_RECORD("printed");
  auto tok = TRACE_RANGE_START("never");
  TRACE_RANGE_END(tok);
#endif
  TRACE_RANGE("count");
  if (i < n && x[i] > 0) {
    atomicAdd(hits, 1);
  }
#if VERBOSE
  if (i == 0) {
    TRACE_RECORD("verbose", n);
    printf("n=%d\n", n);
  }
#elif 0
  TRACE_RECORD("legacy");
  legacy_stuff(i);
#endif
}
