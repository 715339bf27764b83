// Strip rule: an annotation after code on its line goes with the whitespace before it.
__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i * 3;
  if (i < n) {
    out[i] = v;
  }
  int w = v + 1; // comment after code survives
  if (i + 1 < n && w < 0) {
    out[i + 1] = w;
  }
}
