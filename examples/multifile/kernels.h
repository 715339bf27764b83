// The kernels of kernels.cu, as main.cu sees them: declarations only. A traced build keeps these
// signatures; launches in main.cu find each kernel's traced twin at run time (docs/guide.md,
// "Your real project").
#pragma once

// One block per row: sums[r] = sum of row r of the rows x cols matrix m.
__global__ void row_sum(const float *m, float *sums, int rows, int cols);
// x[i] *= factor; launched with cudaLaunchKernelEx.
__global__ void scale(float *x, float factor, int n);
// x[i] = x[i] * x[i]; launched through a function pointer.
__global__ void square(float *x, int n);
// *total = sum of x, in one cooperative launch (a grid-wide barrier between the two phases).
__global__ void grid_sum(const float *x, float *partial, float *total, int n);
// x[i] = i; launched inside a macro.
__global__ void iota(int *x, int n);
// y[i] += a * x[i]; handed to the library launcher of library_launch.h.
__global__ void saxpy(float a, const float *x, float *y, int n);
