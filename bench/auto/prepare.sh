#!/usr/bin/env bash
# Run here (where trace-rewrite builds), after bench/corpus/checkout.sh: writes into
# build-auto-gpu/ (ignored by git) everything bench/auto/h200_auto.sh builds on the GPU machine,
# rewritten with `trace-rewrite --traced --auto` (docs/auto.md), no source edited:
#   cost/      bench/auto/cost.cu plain, --auto (ctas/) and --auto=warps (warps/)
#   samples/   three cuda-samples programs from the corpus (mergeSort: 6 kernels in 2 files;
#              reductionMultiBlockCG: a cooperative launch; warpAggregatedAtomicsCG)
#   llmc/      llm.c's dev/cuda kernels (extracted at a pinned commit from a git directory)
# usage: bench/auto/prepare.sh LLMC_GIT_DIR [TRACE_REWRITE]
set -euo pipefail
cd "$(dirname "$0")/../.."
llmc_git=${1:?llm.c git dir}
tool=$(realpath "${2:-build/bin/trace-rewrite}")
llmc_commit=f1e2ace651495b74ae22d45d1723443fd00ecd3a
out=build-auto-gpu
# llm.c programs whose CPU reference takes seconds, not minutes, and that need no cuBLAS or MPI
LLMC_KERNELS=${LLMC_KERNELS:-"gelu_forward gelu_backward residual_forward encoder_forward encoder_backward layernorm_forward layernorm_backward softmax_forward crossentropy_forward crossentropy_softmax_backward adamw fused_residual_forward global_norm permute"}
rm -rf "$out" && mkdir -p "$out"/{cost/ctas,cost/warps,samples,llmc/src,llmc/auto,include}
cp -r /usr/include/nlohmann "$out/include/" # the runtime's JSON headers (no network there)
rewrite() { # rewrite OUT_CU IN_CU [tool options...] -- compile command
  local o=$1 i=$2 opts=()
  shift 2
  while [[ $1 != -- ]]; do opts+=("$1"); shift; done
  "$tool" --traced "${opts[@]}" "$i" -o "$o" "$@" >>"$out/rewrite.log" 2>&1 ||
    { echo "REWRITE FAILED: $i"; tail -20 "$out/rewrite.log"; exit 1; }
}
rewrite "$out/cost/ctas/cost.cu" bench/auto/cost.cu --auto -- -std=c++17
rewrite "$out/cost/warps/cost.cu" bench/auto/cost.cu --auto=warps -- -std=c++17

samples=bench/corpus/src/cuda-samples
[[ -d $samples ]] || { echo "no $samples: run bench/corpus/checkout.sh first" >&2; exit 2; }
cp -a "$samples/Common" "$out/samples/Common"
for d in 0_Introduction/mergeSort 2_Concepts_and_Techniques/reductionMultiBlockCG \
  3_CUDA_Features/warpAggregatedAtomicsCG; do
  name=$(basename "$d")
  mkdir -p "$out/samples/$name/auto"
  cp "$samples/Samples/$d"/* "$out/samples/$name/"
  for cu in "$out/samples/$name"/*.cu; do
    rewrite "$out/samples/$name/auto/$(basename "$cu")" "$cu" --auto -- \
      nvcc -std=c++17 -arch=sm_90 -I "$out/samples/Common"
  done
done

git --git-dir="$llmc_git" archive "$llmc_commit" dev/cuda | tar -x -C "$out/llmc/src" --strip-components=2
for k in $LLMC_KERNELS; do
  rewrite "$out/llmc/auto/$k.cu" "$out/llmc/src/$k.cu" --auto -- nvcc -std=c++17 -arch=sm_90 \
    -O3 --use_fast_math
done
# Each program and its kernel numbers: the case labels of its dispatch (argv[1] picks one).
for k in $LLMC_KERNELS; do
  echo "$k $(grep -o 'case [0-9]\+:' "$out/llmc/src/$k.cu" | grep -o '[0-9]\+' | sort -nu | tr '\n' ' ')"
done > "$out/llmc/kernels.txt"
du -sh "$out"
