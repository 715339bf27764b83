// Declared here, defined in kernels.cu, called from main.cu.
#pragma once
void row_sums(const float *in, float *out, int rows, int cols);
