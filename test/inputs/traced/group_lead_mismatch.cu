// EXPECT: 9:29: error: group 'producer' is declared with lead 0 at group_lead_mismatch.cu:6:3; every declaration of a name must name the same lead thread (a name identifies one row, written by one thread)
// A name identifies one row, and one row has one writer.
#include <cutrace/trace.h>

__global__ void group_lead_mismatch(float *out, int tiles) {
  TRACE_GROUP("producer", 0);
  TRACE_RECORD("start");
  for (int t = 0; t < tiles; ++t) {
    TRACE_GROUP("producer", 32);
    TRACE_RECORD("tile", t);
    out[t] = 1.0f;
  }
}
