// Strip rule: a TRACE_RANGE_START declaration spanning several lines goes with all of them;
// `const auto` too, and an END sharing a line with code.
__global__ void accumulate(const float *x, float *sum, int n) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    acc += x[i];
  }
  if (acc != 0.0f) {
    atomicAdd(sum, acc);
  }
}
