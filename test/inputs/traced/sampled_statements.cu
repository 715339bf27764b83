// TRACE_SAMPLE: the statement after it stands twice in the twin, with its markers when the
// condition holds and as strip writes it otherwise (calls of recording members included, which
// then reach the originals). A for loop whose k-loop records; a block behind a `#pragma unroll`
// loop; a do-while and an `if` with code after it on the line; a sample nested in a sampled
// loop; a sample in a member function of a class template, as a CUTLASS-style collective keeps
// its main loop; one sampling a statement that records nothing (a warning).
#include <cutrace/trace.h>

template <int Stages> struct Mainloop {
  int stage = 0;

  __device__ void wait(int s) const {
    TRACE_RANGE("wait", "wait", s);
    __nanosleep(8);
  }

  __device__ void run(float *acc, const float *in, int k_tiles, int tile) {
    TRACE_SAMPLE(tile % 4 == 0); // every 4th tile of the CTA records its k-loop
    for (int kt = 0; kt < k_tiles; ++kt, ++stage) {
      wait(stage);
      TRACE_RANGE("mma", "mma", stage);
      acc[kt % Stages] += in[kt];
    }
  }
};

__global__ void sampled_gemm(float *out, const float *in, int tiles, int k_tiles) {
  TRACE_GROUP("consumer", 0);
  float acc[4] = {};
  int local = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++local) {
    TRACE_SAMPLE(local % 8 == 0);
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_RANGE("load", "tma", kt);
      TRACE_SAMPLE(kt == 0);
      {
        TRACE_RECORD("first_stage", tile);
      }
      acc[kt % 4] += in[tile * k_tiles + kt];
    }
    TRACE_SAMPLE(local == 0);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      TRACE_RECORD("epilogue", i);
      out[tile * 4 + i] = acc[i];
    }
  }
  int n = k_tiles;
  TRACE_SAMPLE(blockIdx.x == 0);
  do {
    TRACE_RECORD("drain", n);
  } while (--n > 0);
  TRACE_SAMPLE(tiles > 1); if (n == 0) { TRACE_RECORD("done"); } out[0] += 1.0f;
  TRACE_SAMPLE(tiles > 2); // warned: nothing in the statement records
  out[1] = 0.0f;
}

__global__ void sampled_collective(float *acc, const float *in, int tiles, int k_tiles) {
  Mainloop<4> mainloop;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x)
    mainloop.run(acc, in, k_tiles, tile);
}

// TRACE_SAMPLE_REST: the rest of the tile's block, its declarations included, stands twice (an
// accumulator declared and used there has no value to merge after the two copies).
__global__ void sampled_rest(float *out, int tiles, int k_tiles) {
  TRACE_GROUP("consumer", 0);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    TRACE_SAMPLE_REST(tile % 8 == 0);
    float acc[4] = {};
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_RANGE("k", "mma", kt);
      acc[kt % 4] += 1.0f;
    }
    TRACE_RANGE("epilogue", "epi", tile);
    out[tile] = acc[0] + acc[1];
  }
}

// Two TRACE_SAMPLE_REST in one block end together: the inner one's copy closes first; an
// annotation that ends what is copied leaves its line's end outside the copy.
__global__ void sampled_rest_nested(int *p, int n) {
  TRACE_SAMPLE_REST(n > 0);
  p[0] = 1;
  TRACE_RECORD("a");
  TRACE_SAMPLE_REST(n > 1);
  p[1] = 2;
  TRACE_RECORD("b");
}

void launch(float *out, const float *in, int tiles, int k_tiles) {
  sampled_gemm<<<132, 128>>>(out, in, tiles, k_tiles);
  sampled_collective<<<132, 128>>>(out, in, tiles, k_tiles);
  sampled_rest<<<132, 128>>>(out, tiles, k_tiles);
  sampled_rest_nested<<<1, 32>>>((int *)out, tiles);
}
