// Strip rule: payloads with parentheses, commas, brackets, templates and ternaries inside.
#include <cutrace/trace.h>
template <int N> struct Width { static constexpr int value = N; };
__device__ __host__ constexpr int twice(int v) { return 2 * v; }
// CUDA's min/max are not constexpr (a payload may only call constexpr functions).
__device__ __host__ constexpr int imin(int a, int b) { return a < b ? a : b; }
__device__ __host__ constexpr int imax(int a, int b) { return a < b ? b : a; }

__global__ void payloads(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  TRACE_RECORD("tmpl", Width<(4 > 3 ? 8 : 2)>::value);
  if (i < n) {
    int x = a[i];
    int y = b[i];
    TRACE_RECORD("min", imin(x, y));
    TRACE_RECORD("nested", imax(imin(x, y), (x + y) / 2), "math");
    TRACE_RANGE("tern", "main", x > y ? (x - y) : (y - x));
    TRACE_RECORD("index", a[(i + 1) % n] + b[imin(i, n - 1)]);
    TRACE_RECORD("cexpr", twice((x)), "m,a(i)n");
    c[i] = min(x, y) + max(x, y); TRACE_RECORD("after", ((((x)))), "x");
  }
}
