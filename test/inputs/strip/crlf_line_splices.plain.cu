// Strip rule: line splices in a CRLF file (`\` CR LF, `\` spaces CR LF).

__global__ void k(int *x) {
  // note \
  x[0] = 1;
  // note \  
  x[1] = 1;
  x[2] = 2; \
  
#if 1
  x[3] = 3;
#endif
}
