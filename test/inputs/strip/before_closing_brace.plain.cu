// Strip rule: an annotation followed by `}` on its line: the `}` keeps its place.
__global__ void clamp(float *x, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (v < lo) { v = lo; }
    if (v > hi) { v = hi; }
    x[i] = v;
    }
  for (int k = 0; k < 2; ++k) { }
}
