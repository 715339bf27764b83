// TRACE_SAMPLE before a k-loop, before a block behind a pragma, and before a call of a member:
// strip deletes the annotation and keeps the statement once.
#include <cutrace/trace.h>

struct Stage {
  float sum = 0.0f;
  __device__ void add(const float *in, int k) {
    TRACE_RANGE("add", "math", k);
    for (int i = 0; i < k; ++i)
      sum += in[i];
  }
};

__global__ void sampled(float *out, const float *in, int tiles, int k_tiles) {
  Stage stage;
  int local = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++local) {
    TRACE_SAMPLE(local % 8 == 0); // every 8th tile of the CTA
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_RANGE("k", "loop", kt);
      out[tile] += in[tile * k_tiles + kt];
    }
    TRACE_SAMPLE(tile == 0);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      TRACE_RECORD("halve", i);
      out[tile] *= 0.5f;
    }
    TRACE_SAMPLE(local < 2); stage.add(in + tile * k_tiles, k_tiles);
  }
  out[blockIdx.x] += stage.sum;
}
