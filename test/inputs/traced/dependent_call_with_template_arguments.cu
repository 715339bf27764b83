// EXPECT: 18:23: error: this call names template arguments and its callee depends on a template parameter, so the traced build cannot route it to the twin of 'load'
// A call whose callee depends on a template parameter goes through a dispatcher, which passes
// the arguments on and lets them deduce the callee's template arguments; one that names them
// cannot be dispatched.
#include <cutrace/trace.h>

struct Mainloop {
  template <int Stage> __device__ void load(float *smem, int k) {
    TRACE_RANGE("load", "producer", k);
    smem[Stage * 32 + threadIdx.x % 32] = k;
  }
};

template <class M> __global__ void producer(int k_tiles) {
  __shared__ float smem[128];
  M mainloop;
  for (int k = 0; k < k_tiles; ++k)
    mainloop.template load<0>(smem, k);
}

int main() { producer<Mainloop><<<1, 128>>>(4); }
