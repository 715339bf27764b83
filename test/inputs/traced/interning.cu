// Lanes and event names are interned: each lane string gets one id; every annotation site gets
// its own site id carrying its name, lane and location. Payloads come from loop variables.
#include <cutrace/trace.h>

__global__ void interning(float *x, int n) {
  TRACE_DAG("load", "math");
  for (int k = 0; k < n; ++k) {
    TRACE_RANGE("load", "copy", k);
    auto tok = TRACE_RANGE_START("math", "compute", k * 2);
    x[k] += 1.0f;
    TRACE_RANGE_END(tok);
    TRACE_RECORD("tick", k, "copy");
    TRACE_RECORD("tick", k + 1, "compute");
  }
}
