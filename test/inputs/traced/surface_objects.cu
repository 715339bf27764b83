// Surface reads and writes, which clang's CUDA wrapper does not declare, parse through the
// compat layer, so an annotated kernel that uses them is traced.
#include <cutrace/trace.h>
__global__ void w(cudaSurfaceObject_t s, int n) {
  TRACE_RECORD("w");
  float v = surf2Dread<float>(s, threadIdx.x * 4, 0);
  float u;
  surf2Dread(&u, s, 0, 0);
  surf2Dwrite(v + u, s, threadIdx.x * 4, 0);
  uchar4 c = make_uchar4(1, 2, 3, 4);
  surf2Dwrite(c, s, 0, 0, cudaBoundaryModeClamp);
}
void run(cudaSurfaceObject_t s) { w<<<1, 32>>>(s, 32); }
