#!/usr/bin/env bash
# examples/layernorm (one row per warp) and examples/hopper_pipeline (sm_90a warp-specialized GEMM),
# run on a GPU by test/device/h200_issue14.sh, checked here without one: strip deletes exactly the
# annotation lines and verifies; the stripped and the annotated-as-no-op cubins equal each other
# (.text of every kernel, sm_90a); --traced rewrites them with per-warp / per-warpgroup slice
# groups, the producer row and the load -> compute flow in the decode map; the traced programs
# compile and link against the runtime with a twin per annotated kernel; bench/gpu/slice_cost.cu
# and the device script's own syntax are checked too.
#
# usage: check.sh <trace-rewrite> <nvcc> <cutrace build dir>
set -uo pipefail
tool=$(realpath "$1")
nvcc=$2
build=$(realpath "$3")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir kernel-examples) || exit 1
trap 'rm -rf "$work"' EXIT
source "$repo/test/support/checks.sh"
rt=$build/runtime
NVCC=("$nvcc" -std=c++17 -O3 -arch=sm_90a -I"$repo/runtime/include")

# The lines strip removed are exactly the annotation lines of the source.
strip_removes_only_annotations() { # <source> <stripped>
  diff "$1" "$2" >"$work/strip.diff"
  ! grep -q '^>' "$work/strip.diff" &&
    ! grep '^<' "$work/strip.diff" | grep -vqE 'TRACE_[A-Z_]+\(|cutrace/trace\.h'
}
map_has() { grep -Eq "$2" "$1"; } # <map json> <regex>

check_example() { # <name> <source> <kernel> <map regexes...>
  local name=$1 src=$2 kernel=$3
  shift 3
  local dir=$work/$name stem
  stem=$(basename "${src%.cu}")
  mkdir -p "$dir"
  local inc=(-I"$(dirname "$src")")
  echo "--- $name: strip"
  check "$name.StripVerifies" "$tool" --verify-strip "$src" -- -std=c++17 "${inc[@]}"
  if "$tool" "$src" -o "$dir/$stem.cu"; then
    check "$name.StripRemovesExactlyTheAnnotationLines" \
      strip_removes_only_annotations "$src" "$dir/$stem.cu"
    "$tool" "$dir/$stem.cu" -o "$dir/$stem.again.cu" &&
      check "$name.StripIsIdempotent" cmp -s "$dir/$stem.cu" "$dir/$stem.again.cu"
    echo "--- $name: stripped and annotated-as-no-op cubins (sm_90a)"
    if "${NVCC[@]}" "${inc[@]}" -cubin "$dir/$stem.cu" -o "$dir/stripped.cubin" \
      >"$work/$name.cubin.log" 2>&1 &&
      "${NVCC[@]}" "${inc[@]}" -cubin "$src" -o "$dir/noop.cubin" >>"$work/$name.cubin.log" 2>&1; then
      check "$name.AnnotatedAsNoOpCubinTextEqualsStripped" \
        same_text "$dir/stripped.cubin" "$dir/noop.cubin"
    else
      fail "$name.CubinsBuild"
      cat "$work/$name.cubin.log"
    fi
  else
    fail "$name.StripWritesTheFile"
  fi
  echo "--- $name: traced"
  if "$tool" --traced "$src" -o "$dir/$stem.traced.cu" -- -std=c++17 -arch=sm_90a "${inc[@]}" \
    >"$work/$name.traced.log" 2>&1; then
    pass "$name.TracedRewriteSucceeds"
    local re
    for re in "$@"; do
      check "$name.DecodeMapHas[$re]" map_has "$dir/$stem.trace_map.json" "$re"
    done
    # Compiled, then linked: a launcher such as ccache (test/CMakeLists.txt) caches the compile.
    if "${NVCC[@]}" "${inc[@]}" -I"$dir" -DCUTRACE_TRACED -Xptxas -v -c "$dir/$stem.traced.cu" \
      -o "$dir/$name.o" >"$work/$name.link.log" 2>&1 &&
      "${NVCC[@]}" "$dir/$name.o" "$rt/libcutrace.a" "$rt/libcutrace_analysis.a" \
        "$rt/libcutrace_format.a" -lpthread -o "$dir/$name" >>"$work/$name.link.log" 2>&1; then
      pass "$name.TracedProgramBuildsAndLinks"
      check "$name.TracedProgramHasTheTwin" has_symbol "$dir/$name" "${kernel}_cutrace_traced("
      check "$name.TracedProgramLinksTheRuntime" \
        has_symbol "$dir/$name" 'cutrace::Recorder::Recorder'
      grep -A3 'Compiling entry function.*'"$kernel" "$work/$name.link.log" |
        grep -E 'spill|Used' | sed 's/^/    /'
    else
      fail "$name.TracedProgramBuildsAndLinks"
      cat "$work/$name.link.log"
    fi
  else
    fail "$name.TracedRewriteSucceeds"
    cat "$work/$name.traced.log"
  fi
}

check_example layernorm "$repo/examples/layernorm/layernorm.cu" layernorm_rows \
  '"name": ?"warp"' '"lead": ?"slice"' '"slice_threads": ?32' '"first_thread": ?0' \
  '"name": ?"row"' '"name": ?"sample"'
check_example hopper_pipeline "$repo/examples/hopper_pipeline/hopper_pipeline.cu" ws_wgmma_gemm \
  '"name": ?"producer"' '"name": ?"consumer"' '"slice_threads": ?128' '"first_thread": ?128' \
  '"src": ?"load"' '"dst": ?"compute"'

echo "--- wgmma_probe builds for sm_90a"
probe_builds() { "${NVCC[@]}" -c "$1" -o "$2.o" && "${NVCC[@]}" "$2.o" -o "$2"; }
check "HopperPipeline.ProbeBuilds" probe_builds "$repo/examples/hopper_pipeline/wgmma_probe.cu" \
  "$work/wgmma_probe"

echo "--- bench/gpu/slice_cost.cu: traced, compiled"
if "$tool" --traced "$repo/bench/gpu/slice_cost.cu" -o "$work/slice_cost.traced.cu" \
  >"$work/slice.log" 2>&1; then
  check "SliceCost.TracedCompiles" "${NVCC[@]}" -I"$work" -c "$work/slice_cost.traced.cu" \
    -o "$work/slice_cost.o"
else
  fail "SliceCost.TracedRewriteSucceeds"
  cat "$work/slice.log"
fi
check "DeviceScript.Issue14ParsesAsBash" bash -n "$repo/test/device/h200_issue14.sh"

if ((failures)); then
  echo "kernel examples: $failures failure(s)"
  exit 1
fi
echo "kernel examples: all passed"
