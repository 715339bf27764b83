// Strip rule: annotation on the same line as the opening `{` of the kernel or a block.
__global__ void oneliner(int *x) { x[threadIdx.x] = 1; }

__global__ void opener(int *x, int n) {
  if (n > 0) {
    x[threadIdx.x] += n;
  }
}
