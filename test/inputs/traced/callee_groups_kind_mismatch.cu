// EXPECT: 6:3: error: group 'consumer' is declared with TRACE_GROUP at callee_groups_kind_mismatch.cu:12:3 and with TRACE_GROUPS here; a name identifies one kind of row
// The kernel declares 'consumer' as one row, its callee as one row per slice.
#include <cutrace/trace.h>

__device__ void consume(float *out) {
  TRACE_GROUPS("consumer", 32);
  TRACE_RECORD("c");
  out[threadIdx.x] = 1.0f;
}

__global__ void kinds(float *out) {
  TRACE_GROUP("consumer", 0);
  consume(out);
}
