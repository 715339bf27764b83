// ARGS: --cuda-gpu-arch=sm_90a
// CUTLASS 3's shape, written small: a generic device_kernel<Operator> calls the kernel class's
// operator(), whose body only the arch-specific compilation sees
// (`#if defined(__CUDA_ARCH_FEAT_SM90_ALL)`). The groups stand together at the top of
// operator(); the producer warp calls the collective's load(), the consumer warpgroups its mma().
// Each thread records into the group whose row it writes: the producer's lead into "producer",
// each consumer warpgroup's first thread into its "consumer" slice.
#include <cutrace/trace.h>

#define KIT_DEVICE __forceinline__ __device__

template <class Operator> __global__ void device_kernel(typename Operator::Params params) {
  extern __shared__ char smem[];
  Operator op;
  op(params, smem);
}

struct Collective {
  KIT_DEVICE void load(float *smem, const float *a, int k) const {
    TRACE_RANGE("load", "producer", k);
    smem[k % 4 * 32 + threadIdx.x % 32] = a[k * 32 + threadIdx.x % 32];
  }
  KIT_DEVICE float mma(float acc, const float *smem, int k) const {
    TRACE_RANGE("mma", "consumer", k);
    return acc + smem[k % 4 * 32 + threadIdx.x % 32];
  }
};

struct Kernel {
  struct Params {
    const float *a;
    float *out;
    int k_tiles;
  };
  KIT_DEVICE void operator()(Params const &p, char *smem_buf) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    TRACE_GROUP("producer", 0);
    TRACE_GROUPS("consumer", 128, 128);
    float *smem = reinterpret_cast<float *>(smem_buf);
    Collective collective;
    if (threadIdx.x < 32) {
      for (int k = 0; k < p.k_tiles; ++k)
        collective.load(smem, p.a, k);
    } else if (threadIdx.x >= 128) {
      float acc = 0.0f;
      for (int k = 0; k < p.k_tiles; ++k)
        acc = collective.mma(acc, smem, k);
      p.out[threadIdx.x] = acc;
    }
#endif
  }
};

void run(const float *a, float *out) {
  Kernel::Params p{a, out, 8};
  device_kernel<Kernel><<<2, 384, 4 * 32 * sizeof(float)>>>(p);
}
