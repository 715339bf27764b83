// Strip rule: annotations in both branches of `#ifdef __CUDA_ARCH__ ... #else ... #endif` are
// stripped (each pass sees only one branch; strip sees both).
__global__ void arch_split(int *out) {
  int i = threadIdx.x;
#ifdef __CUDA_ARCH__
  out[i] = __CUDA_ARCH__ + i;
#else
  out[i] = -1;
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  out[i] += 1;
#elif defined(__CUDA_ARCH__)
  out[i] += 2;
#endif
}
