// Strip rule: TRACE_ inside string and character literals is not an annotation and is kept.
#include <cutrace/trace.h>
__device__ const char kLabel[] = "TRACE_RANGE(";
__device__ const char kRaw[] = R"(TRACE_RECORD("x"); )";

__global__ void labels(char *out) {
  TRACE_RECORD("TRACE_RANGE(");
  const char *s = "TRACE_RECORD(\"inner\");";
  int i = threadIdx.x;
  if (i < 12) {
    TRACE_RECORD("TRACE_RECORD(\"nested\")", i, "TRACE_DAG(");
    out[i] = kLabel[i % 12] + s[i] + kRaw[i] + 'T';
  }
}
