// EXPECT: 6:3: error: TRACE_SAMPLE samples code that an #if, #else or #endif divides (the directive is inside what it samples, its match outside); put the whole conditional inside, or the annotation inside the conditional
// The copy of the sampled loop would hold the #if without its #endif.
#include <cutrace/trace.h>
__global__ void k(float *p, int n) {
#if 1
  TRACE_SAMPLE(n > 0);
#endif
  for (int i = 0; i < n; ++i) {
    TRACE_RECORD("i", i);
    p[i] = 1.0f;
  }
}
