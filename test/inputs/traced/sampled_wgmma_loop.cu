// ARGS: --cuda-gpu-arch=sm_90a
// TRACE_SAMPLE before a k-loop that issues wgmma through a helper, in a kernel template (whose
// pattern does not resolve the call: its instance does), and before a loop without one: the
// first gets a warning that the second copy of such a loop may cost what recording costs, the
// second none.
#include <cutrace/trace.h>

__device__ __forceinline__ void issue_mma(float &acc) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n"
               "// wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 stands here\n"
               "wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
  acc += 1.0f;
}

template <class Mma> struct Stage {
  __device__ void run(float &acc) { Mma::issue(acc); }
};

struct Sm90Mma {
  static __device__ void issue(float &acc) { issue_mma(acc); }
};

template <class Mma>
__global__ void sampled_wgmma(float *out, int k_tiles) {
  float acc = 0;
  TRACE_SAMPLE(blockIdx.x % 8 == 0);
  for (int k = 0; k < k_tiles; ++k) {
    TRACE_RANGE("k_tile", "mma", k);
    Stage<Mma>().run(acc);
  }
  TRACE_SAMPLE(blockIdx.x % 8 == 0);
  for (int k = 0; k < k_tiles; ++k) {
    TRACE_RANGE("epilogue", "store", k);
    out[k] = acc;
  }
}

void run(float *out) { sampled_wgmma<Sm90Mma><<<8, 128>>>(out, 4); }
