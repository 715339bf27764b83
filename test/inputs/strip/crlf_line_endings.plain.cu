// Strip rule: a CRLF file stays CRLF (this file uses \r\n line endings).
__global__ void crlf_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += 1.0f;
    x[i] *= 2.0f;
  }
}
