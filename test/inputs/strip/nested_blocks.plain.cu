// Strip rule: annotations at several block depths (function, loops, if/else, bare blocks).
__global__ void nested(float *x, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows) {
    return;
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = x[r * cols + c];
    if (v > 0.0f) {
      {
        v = v * 0.5f;
      }
    } else {
      int k = 0;
      while (k < 3) {
        v += 1.0f;
        ++k;
      }
      do {
        v -= 0.25f;
      } while (v > 10.0f);
    }
    x[r * cols + c] = v;
  }
}
