// Strip rule: payloads with parentheses, commas, brackets, templates and ternaries inside.
template <int N> struct Width { static constexpr int value = N; };
__device__ __host__ constexpr int twice(int v) { return 2 * v; }
// CUDA's min/max are not constexpr (a payload may only call constexpr functions).
__device__ __host__ constexpr int imin(int a, int b) { return a < b ? a : b; }
__device__ __host__ constexpr int imax(int a, int b) { return a < b ? b : a; }

__global__ void payloads(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i];
    int y = b[i];
    c[i] = min(x, y) + max(x, y);
  }
}
