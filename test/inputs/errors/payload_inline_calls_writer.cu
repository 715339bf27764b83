// EXPECT: 13:31: payload of TRACE_RANGE has side effects: call to 'tile_index' may change program state ('tile_index' calls 'note_tile', which writes to global 'g_tiles_seen'; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__device__ int g_tiles_seen;

__device__ inline int note_tile(int t) {
  g_tiles_seen = t; // a global
  return t;
}
__device__ inline int tile_index(int t) { return note_tile(t) / 4; }

__global__ void k(int *out) {
  TRACE_RANGE("tile", "main", tile_index(blockIdx.x));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
