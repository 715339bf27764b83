// A kernel that ends on the line that closes its scope: the twin stays in that scope.
#include <cutrace/trace.h>

namespace a { __global__ void k(int *x) { TRACE_RECORD("a"); x[0] = 1; } }
namespace b { __global__ void k(int *x) { TRACE_RECORD("b"); x[0] = 2; } } // two of them
namespace { __global__ void hidden(int *x) { TRACE_RECORD("hidden"); x[0] = 3; } }
inline namespace v1 { __global__ void versioned(int *x) { TRACE_RECORD("v1"); x[0] = 4; } }
extern "C" { __global__ void c_kernel(int *x) { TRACE_RECORD("c"); x[0] = 5; } }
namespace d { __global__ void later(int *x); } namespace d { __global__ void later(int *x) {
  TRACE_RECORD("later");
  x[0] = 6;
} }

void run(int *x) {
  a::k<<<1, 1>>>(x);
  b::k<<<1, 1>>>(x);
  hidden<<<1, 1>>>(x);
  versioned<<<1, 1>>>(x);
  c_kernel<<<1, 1>>>(x);
  d::later<<<1, 1>>>(x);
}
