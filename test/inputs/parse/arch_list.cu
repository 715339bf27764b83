// Each arch of the build parses its own #if branches: built for sm_80 and sm_90a (-gencode),
// every annotation below is seen by some pass; built for sm_80 alone, the Hopper ones are not.
#include <cutrace/trace.h>

__global__ void arch_split(float *x) {
  TRACE_GROUP("split", 0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  TRACE_RECORD("hopper");
  x[threadIdx.x] *= 2.0f;
#elif defined(__CUDA_ARCH__)
  TRACE_RECORD("ampere");
  x[threadIdx.x] += 1.0f;
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  TRACE_RECORD("sm90a_features");
#endif
}

void run(float *x) { arch_split<<<1, 32>>>(x); }
