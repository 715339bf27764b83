#!/usr/bin/env bash
# Rewrite time of one translation unit against one Clang parse of it: trace-rewrite --traced (its
# host and device passes) and strip, against clang++-19 -fsyntax-only --cuda-device-only with the
# tool's compat flags and the unit's own flags. Wall seconds, the median of REPS runs each.
#   bench/rewriter/unit_time.sh [-r REPS] [-t TRACE_REWRITE] [-a sm_90a] FILE.cu [-- FLAGS...]
# FLAGS are the unit's -I/-D/-std flags (what cutrace-nvcc would pass after --). Prints one
# markdown row: | file | parse s | traced s (ratio) | strip s (ratio) |. bench/fa3/prepare.sh and
# the CUTLASS sweep build the units measured in docs/PERFORMANCE.md.
set -euo pipefail
reps=3 tool=build/bin/trace-rewrite arch=sm_90a
while getopts "r:t:a:" o; do
  case $o in r) reps=$OPTARG ;; t) tool=$OPTARG ;; a) arch=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
file=${1:?usage: unit_time.sh [-r REPS] [-t TRACE_REWRITE] [-a ARCH] FILE.cu [-- FLAGS...]}
shift
[[ ${1:-} == -- ]] && shift
flags=("$@")
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"
: >"$tmp/texture_fetch_functions.h"
cp "$here/rewriter/compat/cuda13_intrinsics.h" "$tmp/cutrace_cuda13_intrinsics.h"
# nvcc's own macros, as the tool's passes define them (rewriter/compat/CudaCompat.cpp): CUTLASS
# stops at its toolkit check without them, and a parse that stops early is no baseline.
read -r major minor build < <(/usr/local/cuda/bin/nvcc --version |
  sed -n 's/.*V\([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\1 \2 \3/p')
parse=(clang++-19 -x cuda -D__NVCC__ -D__NVCC_DIAG_PRAGMA_SUPPORT__=1
  -D__CUDACC_DEVICE_ATOMIC_BUILTINS__=1 -D__CUDACC_VER_MAJOR__="$major" -D__CUDACC_VER_MINOR__="$minor"
  -D__CUDACC_VER_BUILD__="$build" -D__CUDA_API_VER_MAJOR__="$major" -D__CUDA_API_VER_MINOR__="$minor"
  --cuda-path=/usr/local/cuda --cuda-gpu-arch="$arch" --cuda-device-only
  -Wno-unknown-cuda-version -w -fsyntax-only -isystem /usr/local/cuda/include/cccl -isystem "$tmp"
  -include "$tmp/cutrace_cuda13_intrinsics.h" -I"$here/runtime/include")
median_of() { # CMD...: median wall seconds of REPS runs (Clang may report errors nvcc accepts)
  local times=()
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f "%e" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || ((${MAY_FAIL:-0})) ||
      { echo "FAILED: $*" >&2; tail -5 "$tmp/err" >&2; return 1; }
    times+=("$(tail -n 1 "$tmp/t")")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p"
}
tp=$(MAY_FAIL=1 median_of "${parse[@]}" "${flags[@]}" "$file")
tt=$(median_of "$tool" --traced --cuda-gpu-arch="$arch" "$file" -o "$tmp/out/t.traced.cu" -- "${flags[@]}")
ts=$(median_of "$tool" "$file" -o "$tmp/s.cu")
python3 -c "
import sys; p, t, s = map(float, sys.argv[2:5])
print(f'| {sys.argv[1]} | {p:.2f} | {t:.2f} ({t / p:.2f}x) | {s:.3f} ({s / p:.3f}x) |')" \
  "$(basename "$file")" "$tp" "$tt" "$ts"
