// EXPECT: 6:3: preprocessor directive inside TRACE_RANGE(...); an annotation's arguments cannot depend on #if (write one annotation in each branch)
#include <cutrace/trace.h>

__global__ void pick(int *x) {
  TRACE_RANGE("d",
  %:if 1
    "lane_a"
  %:else
    "lane_b"
  %:endif
  );
  x[0] = 1;
}
