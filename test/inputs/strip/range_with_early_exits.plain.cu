// Strip rule: ranges around return/break/continue/goto are removed like any statement.
__global__ void exits(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  int acc = 0;
  for (int k = 0; k < 16; ++k) {
    if (in[(i + k) % n] < 0) {
      continue;
    }
    if (acc > 100) {
      break;
    }
    acc += in[(i + k) % n];
  }
  if (acc == 0) {
    goto done;
  }
  out[i] = acc;
done:
  return;
}
