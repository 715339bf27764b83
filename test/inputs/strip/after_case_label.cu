// Strip rule: annotations after a `case`/`default` label (same line and next line).
#include <cutrace/trace.h>
__global__ void dispatch(const int *op, float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  switch (op[i]) {
  case 0: TRACE_RECORD("op_add", i); x[i] += 1.0f; break;
  case 1:
    TRACE_RECORD("op_mul");
    x[i] *= 2.0f;
    break;
  case 2: {
    TRACE_RANGE("op_neg", "main", i);
    x[i] = -x[i];
    break;
  }
  case 3: TRACE_RECORD("op_three");
  default:
    TRACE_RECORD("op_default", op[i]);
    x[i] = 0.0f;
  }
}
