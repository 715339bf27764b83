// Strip rule: a file without a final newline stays without one.
__global__ void last_line(int *x) {
  x[threadIdx.x] = 7;
}