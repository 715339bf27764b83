// Strip rule: unusual spacing inside and around the annotation's parentheses.
__global__ void spacing(int *x) {
  int i = threadIdx.x;
  x[i] = i * i;
}
