// Strip rule: identifiers that merely contain or extend an annotation name are not annotations.
#include <cutrace/trace.h>
#define MY_TRACE_RECORD(v) ((v) + 1)
#define TRACE_RECORDS 4
struct Counters { int TRACE_RANGE_STARTED; };

__global__ void lookalikes(int *out) {
  int TRACE_GROUP_ = 2;
  TRACE_RECORD("real", TRACE_RECORDS);
  Counters c{3};
  int v = MY_TRACE_RECORD(threadIdx.x) * TRACE_RECORDS;
  out[threadIdx.x] = v + TRACE_GROUP_ + c.TRACE_RANGE_STARTED;
}
