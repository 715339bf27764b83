// An annotation in a preprocessor branch no parse compiled is dropped with a warning, never left
// as a raw macro call; the branch the parse saw is traced. Both archs compile the output.
#include <cutrace/trace.h>

__global__ void arch_split(float *x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  TRACE_RANGE("hopper_path");
  x[threadIdx.x] *= 2.0f;
#elif defined(__CUDA_ARCH__)
  TRACE_RANGE("older_path");
  x[threadIdx.x] += 1.0f;
#endif
}

void run(float *x) { arch_split<<<1, 32>>>(x); }
