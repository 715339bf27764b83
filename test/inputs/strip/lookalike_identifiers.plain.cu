// Strip rule: identifiers that merely contain or extend an annotation name are not annotations.
#define MY_TRACE_RECORD(v) ((v) + 1)
#define TRACE_RECORDS 4
struct Counters { int TRACE_RANGE_STARTED; };

__global__ void lookalikes(int *out) {
  int TRACE_GROUP_ = 2;
  Counters c{3};
  int v = MY_TRACE_RECORD(threadIdx.x) * TRACE_RECORDS;
  out[threadIdx.x] = v + TRACE_GROUP_ + c.TRACE_RANGE_STARTED;
}
