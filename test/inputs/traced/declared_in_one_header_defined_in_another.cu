// A forward declaration in one header, the annotated definition in a later one: a function
// written between them calls the declared helper and launches the declared kernel, so the twins
// must be declared where the originals are (docs/design.md, "Headers").
#include "declared_in_one_header_defined_in_another/declares.h"

__device__ void middle(int *x) { leaf(x); }

__global__ void outer(int *x) { middle(x); }

void launch_scale(int *x) { scale<<<1, 32>>>(x); }

#include "declared_in_one_header_defined_in_another/defines.h"

int main() {
  int *x = nullptr;
  outer<<<1, 32>>>(x);
  launch_scale(x);
  return 0;
}
