// Strip rule: annotation alone on its line followed by a // comment: the whole line goes.
__global__ void add(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  c[i] = a[i] + b[i]; // keep this comment: it follows code
}
