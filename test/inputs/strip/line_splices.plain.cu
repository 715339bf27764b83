// Strip rule: a line splice (`\` at the end of a line) keeps the lines it joins: only the statement goes.

__global__ void k(int *x) {
  // note \
  x[0] = 1;
  // trailing spaces after the backslash still splice \  
  x[1] = 1;
  x[2] = 2; \
  
#if 1
  x[3] = 3;
#endif
  x[5] = 5;
}
