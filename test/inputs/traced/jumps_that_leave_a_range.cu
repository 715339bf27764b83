// Jumps that leave a range's scope, or stay inside it, compile: the range ends on each exit.
#include <cutrace/trace.h>

__global__ void retry(int *x, int n) {
  int tries = 0;
again:
  {
    TRACE_RANGE("attempt");
    if (x[0] == 0 && ++tries < n)
      goto again;
    if (x[1])
      goto inner;
    x[2] = 1;
  inner:
    x[3] = 2;
    if (x[4])
      goto out;
  }
  x[5] = 3;
out:
  x[6] = 4;
}

void run(int *x, int n) { retry<<<1, 32>>>(x, n); }
