// Strip rule: tab-indented annotations alone on their lines go with their whole lines.
#include <cutrace/trace.h>
__global__ void negate(float *x, int n) {
	TRACE_GROUP("all", 0);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	 	TRACE_RECORD("mixed_indent", i);
	if (i < n) {
		TRACE_RANGE("negate", "main", i);
		x[i] = -x[i];
		TRACE_RECORD("after");		
	}
}
