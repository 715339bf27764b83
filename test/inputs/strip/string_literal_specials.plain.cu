// Strip rule: string literal arguments containing `)`, `,`, `;`, `//`, `/*` and escapes do not
// end the annotation early.
__global__ void strings(int *x) {
  int i = threadIdx.x;
  x[i] = i;
  x[i] += 2;
}
