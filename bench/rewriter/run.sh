#!/usr/bin/env bash
# Rewriter speed on this machine: trace-rewrite --traced and strip against one Clang parse
# (clang++-19 -fsyntax-only --cuda-device-only with the same compat flags) and against nvcc -c,
# on the same files. Median of REPS runs; peak RSS from /usr/bin/time.
# usage: bench/rewriter/run.sh [trace-rewrite] [REPS]     (prints a markdown table)
#        SMOKE=1 bench/rewriter/run.sh ...  two small files only (the CI smoke test)
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/stubs"
: > "$work/stubs/texture_fetch_functions.h"
cp rewriter/compat/cuda13_intrinsics.h "$work/stubs/cutrace_cuda13_intrinsics.h"
python3 bench/rewriter/generate.py multi "$work/multi_kernel.cu" 60
for n in 1000 2500 5000 10000; do
  python3 bench/rewriter/generate.py annotations "$work/annotations_$n.cu" $n
done
files=(test/inputs/traced/two_kernels.cu test/inputs/strip/real_block_reduce_cub.cu
       "$work/multi_kernel.cu" "$work/annotations_1000.cu" "$work/annotations_2500.cu"
       "$work/annotations_5000.cu" "$work/annotations_10000.cu")
if [[ ${SMOKE:-0} == 1 ]]; then
  files=(test/inputs/traced/two_kernels.cu "$work/annotations_1000.cu")
fi
clang_parse=(clang++-19 -x cuda -std=c++17 --cuda-path=/usr/local/cuda --cuda-gpu-arch=sm_90
  --cuda-device-only -Wno-unknown-cuda-version -w -fsyntax-only -isystem /usr/local/cuda/include/cccl
  -isystem "$work/stubs" -include "$work/stubs/cutrace_cuda13_intrinsics.h" -Iruntime/include)

# median_of <cmd...>: prints "seconds maxrss_kb" (median by time)
median_of() {
  local out=()
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
    out+=("$(cat "$work/t")")
  done
  printf '%s\n' "${out[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p"
}

echo "| file | lines | annotations | clang parse s | traced s (ratio) | strip s (ratio) | nvcc -c s | peak MB traced / clang |"
echo "|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  lines=$(wc -l < "$f")
  ann=$(grep -c 'TRACE_[A-Z_]*(' "$f" || true)
  read -r tc mc < <(median_of "${clang_parse[@]}" "$f")
  read -r tt mt < <(median_of "$tool" --traced "$f" -o "$work/out.cu")
  read -r ts _ < <(median_of "$tool" "$f" -o "$work/strip.cu")
  read -r tn _ < <(median_of /usr/local/cuda/bin/nvcc -std=c++17 -arch=sm_90 -Iruntime/include -c "$f" -o "$work/x.o")
  ratio() { python3 -c "print(f'{$1 / max($2, 1e-9):.2f}')"; }
  echo "| $(basename "$f") | $lines | $ann | $tc | $tt ($(ratio "$tt" "$tc")x) | $ts ($(ratio "$ts" "$tc")x) | $tn | $((mt / 1024)) / $((mc / 1024)) |"
done
