#!/usr/bin/env bash
# Zero cost in the traced build too: trace-rewrite --traced keeps every original kernel beside its
# twin, stripped, and sends only annotated kernels' launches to twins. So each kernel of the
# never-annotated X.plain.cu (originals of annotated kernels, and unannotated kernels that call
# annotated __device__ helpers) must compile to the same machine code from the traced file.
#
# With --auto (or --auto=warps) every kernel gets a twin (docs/auto.md), and the originals must
# still compile to the machine code of the file as written; an input without annotations is its
# own plain file.
#
# usage: traced_originals.sh <trace-rewrite binary> [--auto[=warps]] <X.cu>...
#        (X.plain.cu beside each annotated X.cu)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
include_dir=${CUTRACE_INCLUDE_DIR:-$here/../../runtime/include}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
readelf=${LLVM_READELF:-llvm-readelf-19}
objcopy=${LLVM_OBJCOPY:-llvm-objcopy-19}

if [[ $# -lt 2 ]]; then
  echo "usage: $0 <trace-rewrite> <X.cu>..." >&2
  exit 2
fi
tool=$1; shift
auto=()
if [[ ${1:-} == --auto* ]]; then
  auto=("$1"); shift
fi
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir traced-originals) || exit 1
trap 'rm -rf "$work"' EXIT

texts() { "$readelf" -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] \(\.text\.[^ ]\+\) .*/\1/p'; }

status=0
for src in "$@"; do
  name=$(basename "${src%.cu}")
  d="$work/$name"
  mkdir -p "$d"
  plain="${src%.cu}.plain.cu"
  [[ -f $plain ]] || plain=$src
  if ! "$tool" --traced "${auto[@]}" "$src" -o "$d/$name.traced.cu" >"$d/tool.log" 2>&1; then
    echo "FAIL $name: trace-rewrite --traced failed: $(head -c 2000 "$d/tool.log")"; status=1; continue
  fi
  "$nvcc" -arch=sm_90 -cubin -std=c++17 "$plain" -o "$d/plain.cubin" >"$d/plain.log" 2>&1 ||
    { echo "FAIL $name: plain does not compile: $(head -c 2000 "$d/plain.log")"; status=1; continue; }
  "$nvcc" -arch=sm_90 -cubin -std=c++17 -I "$include_dir" -I "$d" -I "$(dirname "$src")" \
    "$d/$name.traced.cu" -o "$d/traced.cubin" >"$d/traced.log" 2>&1 ||
    { echo "FAIL $name: traced does not compile: $(head -c 2000 "$d/traced.log")"; status=1; continue; }
  texts "$d/traced.cubin" >"$d/traced.sections"
  checked=0
  while read -r sec; do
    if ! grep -qxF "$sec" "$d/traced.sections"; then
      echo "FAIL $name: $sec of the plain build is missing from the traced build"; status=1; continue
    fi
    "$objcopy" --dump-section="$sec=$d/p.bin" "$d/plain.cubin" "$d/p.tmp" 2>/dev/null
    "$objcopy" --dump-section="$sec=$d/t.bin" "$d/traced.cubin" "$d/t.tmp" 2>/dev/null
    if ! cmp -s "$d/p.bin" "$d/t.bin"; then
      echo "FAIL $name: $sec differs between the plain and the traced build"; status=1
    fi
    checked=$((checked + 1))
  done < <(texts "$d/plain.cubin")
  [[ $checked -gt 0 ]] || { echo "FAIL $name: no .text section compared"; status=1; continue; }
  echo "ok   $name: $checked .text section(s) of the plain build identical in the traced build"
done
exit $status
