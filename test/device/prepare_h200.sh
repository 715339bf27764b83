#!/usr/bin/env bash
# Run here (where trace-rewrite builds): generates everything the H200 session compiles into
# .carry/ (ignored by git), which `run` carries to the device machine. Then call the device with
#   command: bash test/device/h200_session.sh      carry: [".carry"]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
rm -rf .carry && mkdir -p .carry/include .carry/gen
cp -r /usr/include/nlohmann .carry/include/
gen() { # gen <name> <source> [trace-rewrite options...]
  local name=$1 src=$2; shift 2
  mkdir -p ".carry/gen/$name"
  "$tool" --traced "$src" -o ".carry/gen/$name/$(basename "${src%.cu}").traced.cu" "$@" \
    -- -Iexamples/common -Iexamples/warp_specialized
}
gen warp_specialized examples/warp_specialized/warp_specialized.cu
gen warp_specialized_overflow examples/warp_specialized/warp_specialized.cu --max-events 8
gen reduction examples/reduction/reduction.cu
gen early_exits test/inputs/traced/early_exits.cu
gen many_launches test/device/many_launches.cu
gen graph_capture test/device/graph_capture.cu
gen trap test/device/trap.cu
gen bench_traced bench/gpu/event_cost.cu
gen bench_traced_globaltimer bench/gpu/event_cost.cu --clock globaltimer
gen gemm_traced bench/gpu/gemm_overhead.cu --max-events 1100
mkdir -p .carry/gen/bench_stripped
"$tool" bench/gpu/event_cost.cu -o .carry/gen/bench_stripped/event_cost.cu
"$tool" bench/gpu/gemm_overhead.cu -o .carry/gen/bench_stripped/gemm_overhead.cu
# test/device/h200_issue14.sh: the two example kernels of issue 14, traced and stripped, and the
# per-warp row cost bench.
gen layernorm examples/layernorm/layernorm.cu
# At 4096^3 the producer row of a CTA records about 4000 events: room for all of them.
gen hopper_pipeline examples/hopper_pipeline/hopper_pipeline.cu --max-events 4096
gen slice_cost bench/gpu/slice_cost.cu
mkdir -p .carry/gen/issue14_stripped
"$tool" examples/layernorm/layernorm.cu -o .carry/gen/issue14_stripped/layernorm.cu
"$tool" examples/hopper_pipeline/hopper_pipeline.cu \
  -o .carry/gen/issue14_stripped/hopper_pipeline.cu
du -sh .carry
