// Forward declarations only: a kernel and a __device__ function whose annotated definitions come
// in a later header. Each declaration gets its twin's declaration in the traced copy.
#pragma once
__device__ void leaf(int *x);
__global__ void scale(int *x);
