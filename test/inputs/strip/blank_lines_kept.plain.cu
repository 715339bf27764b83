// Strip rule: only the annotation's own line goes; blank lines around it stay.
__global__ void spaced(float *x) {
  int i = threadIdx.x;

  float v = x[i];


  x[i] = v + 3.0f;

}
