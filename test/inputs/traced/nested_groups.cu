// Inner groups shadow outer ones until the end of their block; markers outside any group go to
// the implicit "block" group.
#include <cutrace/trace.h>

__global__ void nested_groups(float *data, int tiles) {
  TRACE_RECORD("start");
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    TRACE_GROUP("producer", 0);
    for (int t = 0; t < tiles; ++t) {
      TRACE_RANGE("load", "copy", t);
      data[t] = 1.0f;
      {
        TRACE_GROUP("producer_inner", 1);
        TRACE_RECORD("inner", t);
      }
      TRACE_RECORD("after_inner", t);
    }
  } else {
    TRACE_GROUP("consumer", 32);
    for (int t = 0; t < tiles; ++t) {
      TRACE_RANGE("compute", "math", t);
      data[t] *= 2.0f;
    }
  }
  TRACE_RECORD("end");
}
