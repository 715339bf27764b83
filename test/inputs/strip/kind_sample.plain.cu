// TRACE_SAMPLE before a k-loop, before a block behind a pragma, and before a call of a member:
// strip deletes the annotation and keeps the statement once.

struct Stage {
  float sum = 0.0f;
  __device__ void add(const float *in, int k) {
    for (int i = 0; i < k; ++i)
      sum += in[i];
  }
};

__global__ void sampled(float *out, const float *in, int tiles, int k_tiles) {
  Stage stage;
  int local = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++local) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      out[tile] += in[tile * k_tiles + kt];
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      out[tile] *= 0.5f;
    }
    stage.add(in + tile * k_tiles, k_tiles);
  }
  out[blockIdx.x] += stage.sum;
}
