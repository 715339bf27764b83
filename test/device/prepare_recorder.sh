#!/usr/bin/env bash
# Run here (where trace-rewrite builds): generates into .carry/gen/ (ignored by git) the traced
# and stripped sources that test/device/h200_recorder.sh compiles on the H200 with two
# recorders: this tree's (8-byte records) and the one of the checkout it is carried into (the
# 16-byte records of format version 1/2). The generated code is the same for both: it calls
# Group/Range, whose signatures did not change.
#   bash test/device/prepare_recorder.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
G=.carry/gen
rm -rf .carry/gen .carry/include && mkdir -p .carry/include "$G" # .carry/fuzz (scripts/fuzz_pack.sh) stays
cp -r /usr/include/nlohmann .carry/include/
gen() { # gen <name> <source> [trace-rewrite options...]
  local name=$1 src=$2
  shift 2
  mkdir -p "$G/$name"
  "$tool" --traced "$src" -o "$G/$name/$(basename "${src%.cu}").traced.cu" "$@" \
    -- -Iexamples/common -Iexamples/hopper_pipeline -Iexamples/warp_specialized
}
strip() { # strip <name> <source>
  mkdir -p "$G/$1"
  "$tool" "$2" -o "$G/$1/$(basename "$2")"
}
gen hopper_pipeline examples/hopper_pipeline/hopper_pipeline.cu --max-events 4096
gen warp_specialized examples/warp_specialized/warp_specialized.cu
gen gemm_traced bench/gpu/gemm_overhead.cu --max-events 1100
gen slice_cost bench/gpu/slice_cost.cu
gen accuracy bench/gpu/accuracy.cu
strip stripped examples/hopper_pipeline/hopper_pipeline.cu
strip stripped bench/gpu/gemm_overhead.cu
du -sh .carry
