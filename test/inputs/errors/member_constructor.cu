// EXPECT: 7:5: annotations in a constructor are not supported: its calls cannot be sent to a traced twin (only named functions and operator() can); call a member function holding them from it
#include <cutrace/trace.h>

struct Stage {
  int *out;
  __device__ Stage(int *x) : out(x) {
    TRACE_RECORD("construct");
    out[threadIdx.x] = 1;
  }
};

__global__ void k(int *x) { Stage s(x); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
