// A file with #line directives of its own, as parser generators write them: the code after a
// twin and after a sampled loop keeps the line and file the directive gave it, in the traced build
// as in the plain one (the static_asserts hold in both).
#include <cutrace/trace.h>

constexpr bool same_text(const char *a, const char *b) {
  return *a == *b && (*a == 0 || same_text(a + 1, b + 1));
}
#line 500 "gen.y"
__global__ void first(int *x) {
  TRACE_RANGE("first");
  x[0] = 1;
}
static_assert(__LINE__ == 504, "__LINE__ after a twin");
static_assert(same_text(__FILE__, "gen.y"), "__FILE__ after a twin");
#line 700
__global__ void second(int *x) {
  TRACE_SAMPLE(x[1] > 0);
  for (int i = 0; i < 4; ++i) {
    TRACE_RANGE("step");
    x[i] += i;
  }
  static_assert(__LINE__ == 706, "__LINE__ after a sampled loop");
}
static_assert(__LINE__ == 708, "__LINE__ after the second twin");
static_assert(same_text(__FILE__, "gen.y"), "a #line without a file keeps the last one");
# 900 "other.y"
__device__ void helper(int *x) { TRACE_RECORD("helper"); x[2] = 3; }
__global__ void third(int *x) { helper(x); }
static_assert(__LINE__ == 902, "__LINE__ after a helper's twin");
static_assert(same_text(__FILE__, "other.y"), "a GNU line marker's file");

void launch(int *x) {
  first<<<1, 32>>>(x);
  second<<<1, 32>>>(x);
  third<<<1, 32>>>(x);
}
