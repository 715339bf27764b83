// A program built on the stand-in library of system/ (found with -isystem) and include/ (found
// with -I): which library headers a traced build copies (docs/design.md, "Headers").
#include <cutrace/trace.h>
#include <plain/math.h>
#include <probe/mark.h>
#include <probe/quiet.h>
#include <tile/tile.h>

struct Scale {
  int step;
};
// Reached from the library's generic kernel only: records once groups may be declared on the
// call path (until then the rewrite warns that it records nothing).
__device__ void apply(Scale s) { TRACE_RECORD("apply", s.step); }

int main() {
  float *in = nullptr, *out = nullptr;
  int *ids = nullptr;
  cudaMalloc(&in, 256 * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  cudaMalloc(&ids, 32 * sizeof(int));
  tile::run<4>(in, out, 2, 0);
  tile::run_op(Scale{3}, 2, 0);
  probe::ping<<<1, 32>>>(ids);
  probe::drain<<<1, 32>>>(out);
  plain::fill_all(out, 1.0f);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
