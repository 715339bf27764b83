// Recursion through two files is refused as recursion within one file is, at the call that
// closes the cycle.
// EXPECT: 8:5: error: recursive call of 'alpha' through functions of other files
#include "recursion_across_files/alpha.h"

__device__ void beta(int *x, int n) {
  if (n > 0)
    alpha(x, n - 1);
}

__global__ void k(int *x) { beta(x, 3); }

int main() {
  k<<<1, 32>>>(nullptr);
  return 0;
}
