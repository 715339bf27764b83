// Strip rule: no final newline, last line is `}` preceded on its line by an annotation.
__global__ void last_line2(int *x) {
  x[threadIdx.x] = 8; }