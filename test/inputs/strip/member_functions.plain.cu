// Annotations in member functions, written the way CUTLASS 3 writes a kernel: device_kernel<Op>
// calling Op::operator(), a kernel class template declaring producer and consumer rows by warp
// group, load() and mma() of a collective class template (one defined out of class), a
// CUTLASS_HOST_DEVICE static member. The traced build keeps every original beside its twin, and
// the originals compile to the never-annotated machine code.

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
    return k % Stages;
  }

  template <class SmemT> CUTLASS_DEVICE void load(Params const &p, SmemT *smem, int k) const;

  CUTLASS_DEVICE float mma(float acc, float const *smem, int k) const {
    return acc + smem[stage_of(k) * 32 + threadIdx.x % 32];
  }
};

template <int Stages>
template <class SmemT>
CUTLASS_DEVICE void CollectiveMainloop<Stages>::load(Params const &p, SmemT *smem, int k) const {
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
      for (int k = 0; k < params.mainloop.k_tiles; ++k)
        mainloop.load(params.mainloop, smem, k);
    } else {
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
