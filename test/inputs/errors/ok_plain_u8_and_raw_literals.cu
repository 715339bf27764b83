// EXPECT: ok
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD(u8"plain_utf8");
  TRACE_RANGE(R"(raw)", u8"lane", 2);
  TRACE_RECORD("joined" u8"_name", 3);
  x[threadIdx.x] = 1;
}
