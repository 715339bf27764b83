// EXPECT: 9:5: error: group 'consumer' is declared with TRACE_GROUP at group_kind_mismatch.cu:6:5 and with TRACE_GROUPS here; a name identifies one kind of row
#include <cutrace/trace.h>

__global__ void group_kind_mismatch(float *out) {
  if (threadIdx.x < 128) {
    TRACE_GROUP("consumer", 0);
    TRACE_RECORD("a");
  } else {
    TRACE_GROUPS("consumer", 128);
    TRACE_RECORD("b");
  }
  out[threadIdx.x] = 1.0f;
}
