// TRACE_SAMPLE before a statement that begins with a macro, the most common shape of a CUTLASS
// main loop: CUTLASS_PRAGMA_NO_UNROLL expands to `_Pragma("unroll 1")` in the device compilation
// and to nothing in the host one, CUTE_NO_UNROLL to the pragma in both, FOR_TILES writes a loop
// header. Each invocation is written in the file: both copies repeat it as written, and
// --verify-strip accepts what --traced accepts.
#include <cutrace/trace.h>

#if defined(__CUDA_ARCH__)
#define CUTLASS_PRAGMA_NO_UNROLL _Pragma("unroll 1")
#else
#define CUTLASS_PRAGMA_NO_UNROLL
#endif
#define CUTE_NO_UNROLL _Pragma("unroll 1")
#define FOR_TILES(k, n) for (int k = 0; k < (n); ++k)

__global__ void mainloop(float *acc, const float *in, int k_tiles, int tile) {
  TRACE_SAMPLE(tile % 4 == 0);
  CUTLASS_PRAGMA_NO_UNROLL
  for (int kt = 0; kt < k_tiles; ++kt) {
    TRACE_RANGE("mma", "mma", kt);
    acc[kt % 4] += in[kt];
  }
  TRACE_SAMPLE(tile % 8 == 0);
  CUTE_NO_UNROLL
  for (int kt = 0; kt < k_tiles; ++kt) {
    TRACE_RANGE("load", "tma", kt);
    acc[kt % 4] *= in[kt];
  }
  TRACE_SAMPLE(tile == 0);
  FOR_TILES(kt, k_tiles) {
    TRACE_RECORD("tile", kt);
    acc[0] -= in[kt];
  }
}
