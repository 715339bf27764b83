// Strip rule: TRACE_ inside string and character literals is not an annotation and is kept.
__device__ const char kLabel[] = "TRACE_RANGE(";
__device__ const char kRaw[] = R"(TRACE_RECORD("x"); )";

__global__ void labels(char *out) {
  const char *s = "TRACE_RECORD(\"inner\");";
  int i = threadIdx.x;
  if (i < 12) {
    out[i] = kLabel[i % 12] + s[i] + kRaw[i] + 'T';
  }
}
