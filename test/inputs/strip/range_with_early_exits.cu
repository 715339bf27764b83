// Strip rule: ranges around return/break/continue/goto are removed like any statement.
#include <cutrace/trace.h>
__global__ void exits(const int *in, int *out, int n) {
  TRACE_RANGE("exits");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    TRACE_RECORD("early_return"); return;
  }
  int acc = 0;
  for (int k = 0; k < 16; ++k) {
    TRACE_RANGE("iter", "loop", k);
    if (in[(i + k) % n] < 0) {
      TRACE_RECORD("skip");
      continue;
    }
    if (acc > 100) {
      break; TRACE_RECORD("unreachable");
    }
    acc += in[(i + k) % n];
  }
  if (acc == 0) {
    goto done;
  }
  out[i] = acc;
done:
  TRACE_RECORD("done");
  return;
}
