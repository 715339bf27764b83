// Strip rule: two annotations on one line: alone -> the line goes; after code -> both go with
// their separating whitespace; before code -> both go with the whitespace after them.
__global__ void copy2(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i];
    out[i] = v;
  }
}
