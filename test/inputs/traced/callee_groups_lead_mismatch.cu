// EXPECT: 12:27: error: group 'producer' is declared with lead 0 at callee_groups_lead_mismatch.cu:6:3; every declaration of a name must name the same lead thread (a name identifies one row, written by one thread)
// Two callees of one kernel declare one name with different leads: one row cannot have two writers.
#include <cutrace/trace.h>

__device__ void load_a(float *out) {
  TRACE_GROUP("producer", 0);
  TRACE_RECORD("a");
  out[0] = 1.0f;
}

__device__ void load_b(float *out) {
  TRACE_GROUP("producer", 32);
  TRACE_RECORD("b");
  out[1] = 1.0f;
}

__global__ void two_leads(float *out) {
  load_a(out);
  load_b(out);
}
