// Two annotated overloads of one helper, in two headers, with bodies on the same line number:
// each keeps its own sites in the kernel's map.
#include "overloads_on_one_line_in_two_headers/one.h"
#include "overloads_on_one_line_in_two_headers/two.h"

__global__ void k(int *x, float *y) {
  helper(x);
  helper(y);
}

int main() {
  k<<<1, 32>>>(nullptr, nullptr);
  return 0;
}
