// Strip rule: groups whose lead is an expression (warp-specialised kernel, 2-D block).
__global__ void __launch_bounds__(256) warp_roles(const float *in, float *out) {
  int lin = threadIdx.x + threadIdx.y * blockDim.x;
  int warp = lin / 32;
  if (warp < 2) {
    out[lin] = in[lin] * 2.0f;
  } else {
    out[lin] = in[lin] + 2.0f;
  }
}
