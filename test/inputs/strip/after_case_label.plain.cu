// Strip rule: annotations after a `case`/`default` label (same line and next line).
__global__ void dispatch(const int *op, float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  switch (op[i]) {
  case 0: x[i] += 1.0f; break;
  case 1:
    x[i] *= 2.0f;
    break;
  case 2: {
    x[i] = -x[i];
    break;
  }
  case 3:
  default:
    x[i] = 0.0f;
  }
}
