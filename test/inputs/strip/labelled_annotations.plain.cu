// Strip rule: an annotation after a label that a statement follows: the label labels that one.

__global__ void k(int *x) {
  if (x[0])
    goto done;
  switch (x[1]) {
  case 1:
  case 2:
    x[2] = 2;
    break;
  default: x[2] = 0;
  }
done:
  x[3] = 3;
}
