#!/usr/bin/env bash
# Here, from the repository root, after bench/cutlass/sweep.py CUTLASS_DIR --configs
# bf16_coop_256x128_c1 --placements roles,sample: what recording adds inside each loop
# (cutrace-nvcc --cutrace-cost, docs/cli.md) of the kernels whose recording cost
# docs/PERFORMANCE.md section 8 measures: the CuTe Hopper tutorial GEMM, the sweep's cooperative
# bf16 GEMM with every tile recorded and sampled, its e4m3 twin (CUTLASS example 54's kernel and
# FP8 collective), and examples/hopper_pipeline. Prints each compile's notes and warnings.
#   bash bench/cutlass/loop_costs.sh [BUILD_DIR]      (default build; needs cutrace-nvcc built)
set -uo pipefail
B=${1:-build}
W=build-cutlass/sweep
N=$B/bin/cutrace-nvcc
O=build-cutlass/loop_costs
mkdir -p "$O"
cost() { # NAME ARGS...
  local name=$1
  shift
  echo "## $name"
  "$N" --cutrace-cost -std=c++17 -arch=sm_90a --expt-relaxed-constexpr -DNDEBUG -c "$@" \
    -o "$O/$name.o" 2>&1 | grep -E "cutrace: (recording adds|.*instructions added|.*copy of this loop)|error" |
    sed 's/^.*\/\([^/]*:[0-9]*:\)/\1/'
  echo
}
cost tutorial -I$W/ann_roles/include -I$W/util/include $W/tutorial/wgmma_tma_sm90.cu
defs=$(grep -E "^bf16_coop_256x128_c1 " .carry/sweep/configs.txt | cut -d' ' -f2-)
for p in roles sample; do
  cost "coop_bf16_$p" -I$W/ann_$p/include -I$W/util/include $defs bench/cutlass/sweep_gemm.cu
done
# Example 54's kernel and FP8 collective (e4m3, cooperative, 128x128 tiles).
defs=$(grep -E "^e4m3_coop_128x128_c1 " .carry/sweep/configs.txt | cut -d' ' -f2-)
cost coop_e4m3_roles -I$W/ann_roles/include -I$W/util/include $defs bench/cutlass/sweep_gemm.cu
cost hopper_pipeline examples/hopper_pipeline/hopper_pipeline.cu
