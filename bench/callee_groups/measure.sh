#!/usr/bin/env bash
# SASS size of a marker and of a group declared on the call path (docs/design.md, "Traced
# contract"): the same loop traced with its group declared in the kernel (kernel_group.cu) or in
# the function it calls (callee_group.cu), that function inlined or __noinline__, with and without
# one TRACE_RECORD in it; the loop is not unrolled. Counts are instructions of the twin kernel's
# .text section in a cubin, padding NOPs left out (sass_count.py; without -rdc a __noinline__
# function is placed in the section of the kernel calling it); no GPU needed.
# usage: measure.sh <trace-rewrite> [arch]   (prints a Markdown table)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tool=$(realpath "$1")
arch=${2:-sm_90a}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
include_dir=$here/../../runtime/include
work=$(mktemp -d "${TMPDIR:-/tmp}/cutrace-callee-groups.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "| group declared in | called function | marker in it | twin kernel (instructions) | same instructions as declared in the kernel |"
echo "|---|---|---|---|---|"
for variant in kernel_group callee_group; do
  for inline in forceinline noinline; do
    for marker in none record; do
      d="$work/$variant-$inline-$marker"
      mkdir -p "$d"
      m='TRACE_RECORD("step", t)'
      [[ $marker == none ]] && m='(void)0'
      sed -e "s/INLINE/__device__ __${inline}__/" -e "s/MARKER/$m/" "$here/$variant.cu" >"$d/loop.cu"
      (cd "$d" && "$tool" --traced loop.cu -o loop.traced.cu >/dev/null 2>&1)
      "$nvcc" -std=c++17 -arch="$arch" -cubin -I "$include_dir" -I "$d" "$d/loop.traced.cu" \
        -o "$d/loop.cubin"
      section=.text._Z21looped_cutrace_traced
      twin=$(python3 "$here/sass_count.py" "$d/loop.cubin" $section)
      python3 "$here/sass_count.py" "$d/loop.cubin" $section --words >"$d/words"
      same=-
      if [[ $variant == callee_group ]]; then
        same=no
        cmp -s "$d/words" "$work/kernel_group-$inline-$marker/words" && same=yes
      fi
      echo "| ${variant%_group} | $inline | $marker | $twin | $same |"
    done
  done
done
