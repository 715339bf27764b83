// EXPECT: 9:26: error: payload of TRACE_RECORD has side effects (stripping would change behaviour)
// A payload in a member function may not change anything: the traced build evaluates it and
// the stripped build does not.
#include <cutrace/trace.h>

struct Counter {
  int calls = 0;
  __device__ void tick(int k) {
    TRACE_RECORD("tick", calls++);
    calls += k;
  }
};

__global__ void count(int *out) {
  Counter c;
  c.tick(2);
  out[0] = c.calls;
}
