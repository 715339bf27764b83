// One kernel template over two partial specializations whose members share a name and a line
// (kit/mainloop_plain.h and kit/mainloop_fp8.h, as CUTLASS's SS and FP8 mainloops): its map
// must list both functions' sites, each under a key of its own.
#include "kit/mainloop_fp8.h"
#include "kit/mainloop_plain.h"

template <class Mainloop>
__global__ void run(float *out) {
  Mainloop mainloop;
  out[threadIdx.x] = mainloop.mma(float(threadIdx.x));
}

void launch(float *out) {
  run<kit::Mainloop<kit::PlainPolicy<2>>><<<1, 32>>>(out);
  run<kit::Mainloop<kit::Fp8Policy<2>>><<<1, 32>>>(out);
}
