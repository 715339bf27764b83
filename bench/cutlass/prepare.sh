#!/usr/bin/env bash
# Run here (where trace-rewrite builds), from the repository root: prepares the CUTLASS runs of
# bench/cutlass/h200_cutlass.sh under .carry/cutlass/ (ignored by git; CUTLASS's sources never
# enter the repository).
#   bench/cutlass/prepare.sh CUTLASS_DIR [TRACE_REWRITE] [BUILD_DIR]
# CUTLASS_DIR is a checkout of NVIDIA/cutlass at the commit in bench/cutlass/COMMIT (include/,
# tools/util/include/, examples/common/ and the examples below are what is read).
#   1. annotate.py writes the annotated copy of CUTLASS's include/ (build-cutlass/annotated), and
#      the examples and the headers they include besides go to build-cutlass/src;
#   2. strip of every annotated header equals CUTLASS's own byte for byte (strip.txt);
#   3. trace-rewrite --traced of each example against the annotated headers, as cutrace-nvcc
#      runs it (traced source, traced header copies, decode map) into .carry/cutlass/traced/<ex>;
#   4. the plain CUTLASS subset the device builds against, as one archive (cutlass.tgz);
#   5. trace-view linked statically (the GPU machine has no SQLite) into .carry/bin.
set -euo pipefail
cd "$(dirname "$0")/../.."
cutlass=$(realpath "$1")
tool=$(realpath "${2:-build/bin/trace-rewrite}")
build=${3:-build}
carry=.carry/cutlass
work=build-cutlass
examples=(49_hopper_gemm_with_collective_builder/49_collective_builder
          54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm
          48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm)
want=$(cat bench/cutlass/COMMIT)
got=$(cat "$cutlass/PINNED_COMMIT" 2>/dev/null || git -C "$cutlass" rev-parse HEAD 2>/dev/null || echo unknown)
[[ $got == "$want" ]] || echo "warning: CUTLASS at $got, the runs were made at $want" >&2
rm -rf "$carry" && mkdir -p "$carry/traced" "$work" .carry/bin
python3 bench/cutlass/annotate.py "$cutlass" "$work/annotated" >"$carry/annotated.txt"
: >"$carry/strip.txt"
while read -r header; do
  rel=${header#"$work/annotated/"}
  "$tool" "$header" -o "$carry/stripped.tmp"
  if cmp -s "$carry/stripped.tmp" "$cutlass/$rel"; then
    echo "identical $rel" >>"$carry/strip.txt"
  else
    echo "DIFFERS $rel" | tee -a "$carry/strip.txt"; exit 1
  fi
done <"$carry/annotated.txt"
rm -f "$carry/stripped.tmp"
# The rest of what the examples include, inside this checkout too: traced header copies include the
# headers they do not copy by relative paths, so the device needs the same layout (build-cutlass/
# carried whole).
rm -rf "$work/src" && mkdir -p "$work/src/tools/util" "$work/src/examples"
cp -r "$cutlass/tools/util/include" "$work/src/tools/util/"
for ex in "${examples[@]}"; do cp -r "$cutlass/examples/$(dirname "$ex")" "$work/src/examples/"; done
cp -r "$cutlass/examples/common" "$work/src/examples/"
# CUTRACE_BENCH_TILE_SAMPLE: the tile sample of annotate.py's TRACE_SAMPLE (the device builds
# define it, 1 or 8; the rewrite only needs it to parse).
flags=(-std=c++17 "-I$PWD/$work/annotated/include" "-I$PWD/$work/src/tools/util/include"
       "-I$PWD/$work/src/examples/common" "-I$PWD/runtime/include" -DCUTRACE_BENCH_TILE_SAMPLE=1)
for ex in "${examples[@]}"; do
  name=$(basename "$ex")
  mkdir -p "$carry/traced/$name"
  echo "trace-rewrite --traced $ex.cu"
  "$tool" --traced "$work/src/examples/$ex.cu" --cuda-gpu-arch=sm_90a \
    -o "$carry/traced/$name/$name.traced.cu" -- "${flags[@]}" 2>&1 | tee "$carry/traced/$name/rewrite.txt"
done
mkdir -p "$carry/json" && cp -r /usr/include/nlohmann "$carry/json/"  # the runtime's JSON headers
tar -czf "$carry/cutlass.tgz" -C "$cutlass" include tools/util/include examples/common \
  $(for ex in "${examples[@]}"; do echo "examples/$(dirname "$ex")"; done)
g++ -static "$build"/trace-view/CMakeFiles/trace-view.dir/*.o "$build"/runtime/libcutrace_sqlite.a \
  "$build"/runtime/libcutrace_analysis.a "$build"/runtime/libcutrace_format.a -l:libsqlite3.a \
  -lpthread -ldl -lm -o .carry/bin/trace-view
strip .carry/bin/trace-view
du -sh "$carry" .carry/bin/trace-view
