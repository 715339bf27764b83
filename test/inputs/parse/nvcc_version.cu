// Headers and programs choose code by nvcc's version (CUTLASS does for Hopper): the parse must
// take the branch nvcc compiles, so the side effect in its payload is found.
#include <cutrace/trace.h>

__device__ int bump(int *counter) { return atomicAdd(counter, 1); }

__global__ void versioned(int *counter) {
  TRACE_GROUP("v", 0);
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
  TRACE_RECORD("ticket", bump(counter));
#else
  TRACE_RECORD("ticket");
#endif
}
