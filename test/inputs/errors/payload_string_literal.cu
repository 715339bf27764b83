// CHECKED-BY: parse (the payload is converted to int by the Clang parse, as by the recording code)
// EXPECT: 6:21: cannot initialize a parameter of type 'int' with an lvalue of type 'const char[2]'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD("a", "b");
  x[threadIdx.x] = 1;
}
