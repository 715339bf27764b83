// Strip rule: an annotation followed by code on its line goes with the whitespace after it;
// the code then starts at the annotation's column.
__global__ void square(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    x[i] = v * v;
  }
  if (i == 0) { x[0] += 1.0f; }
}
