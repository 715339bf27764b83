// Annotations in member functions: a non-static member reading `this` and called through an
// object, a pointer and `this->`; a const one; a static one called as `C::f`; a member template;
// members of a class and of a class template defined out of class; `operator()` on an object
// and by name; a ref-qualified noexcept member calling another member without `this`; a lambda
// capturing by reference.
#include <cutrace/trace.h>

struct Accumulator {
  float total = 0.0f;
  int steps = 0;

  __device__ __forceinline__ void add(float v) {
    TRACE_RANGE("add", "acc", steps);
    total += v;
    ++steps;
  }
  __device__ float mean() const {
    TRACE_RECORD("mean", steps);
    return steps ? total / steps : 0.0f;
  }
  static __device__ int round_up(int n) {
    TRACE_RECORD("round_up", n);
    return (n + 31) / 32 * 32;
  }
  template <int N> __device__ void add_all(const float *p) {
    TRACE_RANGE("add_all", "acc", N);
    for (int i = 0; i < N; ++i)
      this->add(p[i]);
  }
  __device__ void scale_by(float f);
  __device__ void reset() & noexcept {
    TRACE_RECORD("reset");
    add(-total);
    auto clear = [&] {
      TRACE_RECORD("clear", steps);
      steps = 0;
    };
    clear();
  }
};

__device__ void Accumulator::scale_by(float f) {
  TRACE_RECORD("scale_by", steps);
  total *= f;
}

template <class T> struct Scaler {
  T factor;
  __device__ T apply(T v) const;
  __device__ T operator()(T v) const {
    TRACE_RECORD("scale", (int)v);
    return v * factor;
  }
};

template <class T> __device__ T Scaler<T>::apply(T v) const {
  TRACE_RANGE("apply", "scale");
  return (*this)(v) + factor;
}

__global__ void members(const float *in, float *out) {
  TRACE_GROUP("warp", threadIdx.x % 32);
  Accumulator acc;
  Accumulator *p = &acc;
  acc.add(in[threadIdx.x]);
  p->add_all<4>(in);
  float m = p->mean();
  Scaler<float> half{0.5f};
  out[threadIdx.x] = half(m) + half.apply(m) + Accumulator::round_up(threadIdx.x);
  out[threadIdx.x] += half.operator()(1.0f);
  acc.scale_by(2.0f);
  acc.reset();
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  members<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
