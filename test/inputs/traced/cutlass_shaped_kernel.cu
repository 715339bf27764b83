// A kernel written the way CUTLASS 3 writes one: a generic device_kernel<Operator> whose body
// calls Operator::operator(), a kernel class template whose operator() picks producer or
// consumer by warp group and declares their rows, a collective mainloop class template whose
// load() and mma() hold the pipeline's annotations (CUTLASS_DEVICE and CUTLASS_HOST_DEVICE
// members), and a second operator without annotations launched through the same device_kernel.
#include <cutrace/trace.h>

#define CUTLASS_DEVICE __forceinline__ __device__
#define CUTLASS_HOST_DEVICE __forceinline__ __host__ __device__

template <class Operator> __global__ void device_kernel(typename Operator::Params params) {
  extern __shared__ char smem[];
  Operator op;
  op(params, smem);
}

template <int Stages> struct CollectiveMainloop {
  struct Params {
    const float *a;
    int k_tiles;
  };

  CUTLASS_HOST_DEVICE static int stage_of(int k) {
    TRACE_RECORD("stage", k);
    return k % Stages;
  }

  template <class SmemT> CUTLASS_DEVICE void load(Params const &p, SmemT *smem, int k) const;

  CUTLASS_DEVICE float mma(float acc, float const *smem, int k) const {
    TRACE_RANGE("mma", "consumer", k);
    TRACE_DAG("load", "mma");
    return acc + smem[stage_of(k) * 32 + threadIdx.x % 32];
  }
};

template <int Stages>
template <class SmemT>
CUTLASS_DEVICE void CollectiveMainloop<Stages>::load(Params const &p, SmemT *smem, int k) const {
  TRACE_RANGE("load", "producer", k);
  smem[stage_of(k) * 32 + threadIdx.x % 32] = p.a[k * 32 + threadIdx.x % 32];
}

template <class Mainloop> struct GemmKernel {
  struct Params {
    typename Mainloop::Params mainloop;
    float *out;
  };

  CUTLASS_DEVICE void operator()(Params const &params, char *smem_buf) {
    float *smem = reinterpret_cast<float *>(smem_buf);
    Mainloop mainloop;
    int warp_group = threadIdx.x / 128;
    if (warp_group == 0) {
      TRACE_GROUP("producer", 0);
      TRACE_RECORD("producer_start");
      for (int k = 0; k < params.mainloop.k_tiles; ++k)
        mainloop.load(params.mainloop, smem, k);
    } else {
      TRACE_GROUPS("consumer", 128, 128);
      float acc = Mainloop::stage_of(0);
      for (int k = 0; k < params.mainloop.k_tiles; ++k)
        acc = mainloop.mma(acc, smem, k);
      params.out[threadIdx.x] = acc;
    }
  }
};

struct PlainOperator {
  struct Params {
    float *out;
  };
  CUTLASS_DEVICE void operator()(Params const &params, char *) { params.out[threadIdx.x] = 1.0f; }
};

using Gemm = GemmKernel<CollectiveMainloop<4>>;

int main() {
  Gemm::Params params{};
  PlainOperator::Params plain{};
  cudaMalloc(&params.out, 256 * sizeof(float));
  plain.out = params.out;
  device_kernel<Gemm><<<2, 256, 4 * 32 * sizeof(float)>>>(params);
  device_kernel<PlainOperator><<<1, 32>>>(plain);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
