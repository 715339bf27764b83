#!/usr/bin/env bash
# Here (where trace-rewrite builds): writes into .carry/groups_together/ what
# test/device/gpu_groups_together.sh builds on a GPU machine, which has no Clang:
#   arch_guarded.traced.cu   test/inputs/traced/arch_guarded_operator_groups.cu traced for sm_90a
#                            (CUTLASS 3's shape: the body under __CUDA_ARCH_FEAT_SM90_ALL, groups
#                            declared together in operator(), the collective's load()/mma())
#   together.traced.cu       test/inputs/traced/groups_declared_together.cu traced (the kernel's
#                            own groups declared together, a nested group that shadows them)
#   main.cu                  calls both files' run()
#   include/nlohmann         the runtime's JSON headers (no network there)
# usage: test/device/prepare_groups_together.sh [TRACE_REWRITE]; then carry .carry/groups_together
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=$(realpath "${1:-build/bin/trace-rewrite}")
out=.carry/groups_together
rm -rf "$out" && mkdir -p "$out/include"
cp -r /usr/include/nlohmann "$out/include/"
in=test/inputs/traced
"$tool" --traced "$in/arch_guarded_operator_groups.cu" -o "$out/arch_guarded.traced.cu" \
  --cuda-gpu-arch=sm_90a
"$tool" --traced "$in/groups_declared_together.cu" -o "$out/together.traced.cu"
cat > "$out/main.cu" <<'CU'
#include <cuda_runtime.h>
#include <cstdio>
void run(const float *a, float *out); // arch_guarded_operator_groups.cu: 2 CTAs of 384 threads
void run(float *out);                 // groups_declared_together.cu: 1 CTA of 384 threads
int main() {
  float *a = nullptr, *out = nullptr;
  cudaMalloc(&a, 8 * 32 * sizeof(float));
  cudaMalloc(&out, 2 * 384 * sizeof(float));
  cudaMemset(a, 0, 8 * 32 * sizeof(float));
  run(a, out);
  run(out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("run: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
CU
ls -la "$out"
