#!/usr/bin/env bash
# Run here (where trace-rewrite builds): writes the traced sources test/device/h200_issue15.sh
# compiles into .carry/ (ignored by git; replaced). Then on the device:
#   command: bash test/device/h200_issue15.sh      carry: [".carry"]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
rm -rf .carry && mkdir -p .carry/include .carry/gen
cp -r /usr/include/nlohmann .carry/include/
gen() { # gen <name> <source> [trace-rewrite options...]
  local name=$1 src=$2
  shift 2
  mkdir -p ".carry/gen/$name"
  "$tool" --traced "$src" -o ".carry/gen/$name/$(basename "${src%.cu}").traced.cu" "$@" \
    -- -Iexamples/common -Iexamples/warp_specialized
}
gen warp_specialized examples/warp_specialized/warp_specialized.cu
gen ws_gemm_float4 test/device/ws_gemm_float4.cu
gen layernorm examples/layernorm/layernorm.cu
du -sh .carry
