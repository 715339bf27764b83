#!/usr/bin/env python3
"""Generated rewriter-benchmark inputs.

usage: generate.py multi OUT.cu KERNELS      many small annotated kernels (~30 lines each)
       generate.py annotations OUT.cu N      N annotations spread over kernels of 100 each
"""
import sys

KERNEL = """
__global__ void {name}(const float *__restrict__ in, float *__restrict__ out, int n, int tiles) {{
  TRACE_GROUP("producer", 0);
  __shared__ float tile[256];
  float acc = 0.0f;
  for (int t = 0; t < tiles; ++t) {{
    TRACE_RANGE("load", "copy", t);
    int i = t * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    {{
      TRACE_RANGE("compute", "math", t);
      for (int k = 0; k < 8; ++k)
        acc = fmaf(acc, 0.999f, tile[(threadIdx.x + k) % blockDim.x]);
    }}
    __syncthreads();
    TRACE_RECORD("tile_done", t);
  }}
  auto tok = TRACE_RANGE_START("store", "copy", blockIdx.x);
  if (blockIdx.x * blockDim.x + threadIdx.x < n)
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  TRACE_RANGE_END(tok);
  TRACE_DAG("load", "compute");
}}
"""

LAUNCH = "  {name}<<<(n + 255) / 256, 256, 0, s>>>(in, out, n, 4);\n"


def multi(count):
    names = [f"kernel_{i}" for i in range(count)]
    body = "".join(KERNEL.format(name=n) for n in names)
    host = "void run_all(const float *in, float *out, int n, cudaStream_t s) {\n"
    host += "".join(LAUNCH.format(name=n) for n in names) + "}\n"
    return "#include <cutrace/trace.h>\n" + body + "\n" + host


def annotations(total):
    out = ["#include <cutrace/trace.h>\n"]
    per_kernel = 100
    for k in range((total + per_kernel - 1) // per_kernel):
        out.append(f"__global__ void many_{k}(float *x, int n) {{\n  float a = 0.0f;\n")
        for i in range(min(per_kernel, total - k * per_kernel)):
            if i % 2:
                out.append(f"  TRACE_RECORD(\"r{i % 7}\", {i}, \"lane{i % 3}\");\n")
            else:
                out.append(f"  {{\n    TRACE_RANGE(\"s{i % 5}\", \"lane{i % 3}\", {i});\n"
                           f"    a += x[{i} % n];\n  }}\n")
        out.append("  x[0] = a;\n}\n")
    return "".join(out)


if __name__ == "__main__":
    kind, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    text = multi(count) if kind == "multi" else annotations(count)
    with open(path, "w") as f:
        f.write(text)
