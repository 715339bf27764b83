// Strip rule: a /* comment */ that opens on an annotation's line and closes on a later one stays.

__global__ void k(int *x) {
  /* opens here
  x[0] = 1;          and closes here */ x[1] = 1;
  x[2] = 2; /* opens before
  */
  x[3] = 3;
}
