#!/usr/bin/env bash
# Run here (where trace-rewrite builds): generates into .carry/gen/ (ignored by git) the sources
# test/device/h200_recorder6.sh compiles on the H200. Those of test/device/prepare_recorder.sh,
# plus copies of the traced hopper_pipeline and SGEMM in which the pairs of scoped ranges that meet
# with no code between are rewritten by test/device/recorder6_edit.py (modes a, b, ab: one clock
# read at the boundary, the first range's record stored where the second ends, both):
#   hopper_pipeline: 0 wait_empty -> 1 load (producer), 2 wait -> 3 compute (consumers)
#   gemm_overhead:   0 load -> 1 math
# and copies of hopper_pipeline with one role's pair rewritten (hopper_pipeline_<mode>cons: the
# consumers' only, hopper_pipeline_<mode>prod: the producer's only).
# And .carry/gen/hopper_relaxed/: examples/hopper_pipeline's headers with the mbarrier arrives
# `.relaxed.cta` instead of the default `.release.cta` (h200_recorder6.sh's <variant>rel builds).
# Each copy is compiled here to PTX (nvcc -ptx) so a probe that does not build is found before
# the device run.
#   bash test/device/prepare_recorder6.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/device/prepare_recorder.sh "$@"
G=.carry/gen
edit() { # edit <mode> <copy name> <generated dir> <file> <x:y>...
  local mode=$1 out=$G/$2 dir=$3 file=$4
  shift 4
  mkdir -p "$out"
  cp "$G/$dir"/*.trace_map.* "$out/"
  python3 test/device/recorder6_edit.py "$mode" "$G/$dir/$file.traced.cu" "$out/$file.traced.cu" "$@"
  nvcc -std=c++17 -arch=sm_90a -ptx -Iruntime/include -I.carry/include -Iexamples/common \
    -Iexamples/hopper_pipeline -I"$out" "$out/$file.traced.cu" -o /dev/null
  echo "$out/$file.traced.cu: $(grep -o 'stamp(); __cutrace_payload_' "$out/$file.traced.cu" | wc -l) ranges edited, PTX built"
}
for mode in a b ab; do
  edit "$mode" "hopper_pipeline_$mode" hopper_pipeline hopper_pipeline 0:1 2:3
  edit "$mode" "gemm_traced_$mode" gemm_traced gemm_overhead 0:1
  # one role of the hopper GEMM at a time (h200_recorder6.sh's <mode>cons, <mode>prod)
  edit "$mode" "hopper_pipeline_${mode}cons" hopper_pipeline hopper_pipeline 2:3
  edit "$mode" "hopper_pipeline_${mode}prod" hopper_pipeline hopper_pipeline 0:1
done
# What recording every N-th stage saves (h200_recorder6.sh's s2, s8, s64, s0), and what a k-loop
# standing twice would (v8, v0, v1): copies of the annotated example, edited, then rewritten as
# the example is.
#   s<N>  the four k-loop ranges as TRACE_RANGE_IF(stage % N == 0, ...): every N-th stage
#   s0    the same with a condition that never holds at run time (m < 0): the cost of the
#         predicated-off markers alone
#   v<N>  each role's k-loop twice (test/device/recorder9_versions.py): annotated for every N-th
#         tile of the CTA, without its markers for the others; v0 none (m < 0), v1 every tile
#   t<N>  the same by the rewriter: a TRACE_SAMPLE before each role's k-loop, every N-th tile of
#         the CTA (t0: m < 0, never; t1: m >= 0, always, decided at run time); and the SGEMM's
#         whole k-loop sampled per CTA (gemm_traced_t<N>: every N-th CTA of the grid)
variant() { # variant <copy name> <command that writes the edited source to $1>
  local name=$1 src=$G/src/$1/hopper_pipeline.cu
  shift
  mkdir -p "$(dirname "$src")"
  "$@" "$src"
  cmp -s "$src" examples/hopper_pipeline/hopper_pipeline.cu &&
    { echo "prepare_recorder6.sh: $name: the edit changed nothing" >&2; exit 1; }
  mkdir -p "$G/hopper_pipeline_$name"
  "$tool" --traced "$src" -o "$G/hopper_pipeline_$name/hopper_pipeline.traced.cu" \
    --max-events 4096 -- -Iexamples/common -Iexamples/hopper_pipeline
  nvcc -std=c++17 -arch=sm_90a -ptx -Iruntime/include -I.carry/include -Iexamples/common \
    -Iexamples/hopper_pipeline -I"$G/hopper_pipeline_$name" "$G/hopper_pipeline_$name/hopper_pipeline.traced.cu" -o /dev/null
  echo "$G/hopper_pipeline_$name: $(grep -c 'TRACE_RANGE' "$src") ranges, PTX built"
}
sampled() { sed -E "$1" examples/hopper_pipeline/hopper_pipeline.cu >"$2"; }
versions() { python3 test/device/recorder9_versions.py examples/hopper_pipeline/hopper_pipeline.cu "$2" "$1"; }
tool=${1:-build/bin/trace-rewrite}
k_loop='"(wait_empty|load|wait|compute)"'
for n in 2 8 64; do
  variant "s$n" sampled "s/TRACE_RANGE\(($k_loop)/TRACE_RANGE_IF(stage % $n == 0, \1/"
done
variant s0 sampled "s/TRACE_RANGE\(($k_loop)/TRACE_RANGE_IF(m < 0, \1/"
variant v8 versions 'nth % 8 == 0'
variant v0 versions 'm < 0'
variant v1 versions 'true'
# TRACE_SAMPLE before the producer's k-loop (8 spaces in) and the consumers' (6 spaces in).
k_loop_line='for (int kt = 0; kt < k_tiles; ++kt, ++stage) {$'
sample_loops() { # sample_loops <condition on the CTA's tile number, written as @> <out>
  local producer=${1//@/((tile - int(blockIdx.x)) / int(gridDim.x))} consumer=${1//@/local}
  sed -e "s|^        $k_loop_line|        TRACE_SAMPLE($producer);\n&|" \
    -e "s|^      $k_loop_line|      TRACE_SAMPLE($consumer);\n&|" \
    examples/hopper_pipeline/hopper_pipeline.cu >"$2"
  [[ $(grep -c TRACE_SAMPLE "$2") == 2 ]] ||
    { echo "prepare_recorder6.sh: the k-loops of hopper_pipeline.cu were not found" >&2; exit 1; }
}
variant t8 sample_loops '@ % 8 == 0'
variant t64 sample_loops '@ % 64 == 0'
variant t0 sample_loops 'm < 0'
variant t1 sample_loops 'm >= 0'
# The SGEMM has one tile per CTA: its whole k-loop recorded in every 8th CTA of the grid.
mkdir -p "$G/src/gemm_t8" "$G/gemm_traced_t8"
sed -E 's|^  for \(int k0 = 0; k0 < n; k0 \+= kDepth\) \{$|  TRACE_SAMPLE((blockIdx.y * gridDim.x + blockIdx.x) % 8 == 0);\n&|' \
  bench/gpu/gemm_overhead.cu >"$G/src/gemm_t8/gemm_overhead.cu"
[[ $(grep -c TRACE_SAMPLE "$G/src/gemm_t8/gemm_overhead.cu") == 1 ]] ||
  { echo "prepare_recorder6.sh: the SGEMM's k-loop was not found" >&2; exit 1; }
"$tool" --traced "$G/src/gemm_t8/gemm_overhead.cu" -o "$G/gemm_traced_t8/gemm_overhead.traced.cu" \
  --max-events 1100
nvcc -std=c++17 -arch=sm_90a -ptx -Iruntime/include -I.carry/include -I"$G/gemm_traced_t8" \
  "$G/gemm_traced_t8/gemm_overhead.traced.cu" -o /dev/null
echo "$G/gemm_traced_t8: k-loop sampled per CTA, PTX built"
# The relaxed arrives: both arrive forms rewritten, or the probe would measure nothing.
R=$G/hopper_relaxed
mkdir -p "$R"
cp examples/hopper_pipeline/*.h "$R/"
sed -i -e 's/mbarrier\.arrive\.expect_tx\.shared::cta\.b64/mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64/' \
  -e 's/mbarrier\.arrive\.shared::cta\.b64/mbarrier.arrive.relaxed.cta.shared::cta.b64/' "$R/hopper_ptx.h"
[[ $(grep -c 'mbarrier\.arrive[.a-z_]*\.relaxed\.cta' "$R/hopper_ptx.h") == 2 ]] ||
  { echo "prepare_recorder6.sh: the arrives of hopper_ptx.h were not rewritten" >&2; exit 1; }
nvcc -std=c++17 -arch=sm_90a -ptx -Iruntime/include -I.carry/include -Iexamples/common -I"$R" \
  "$G/hopper_pipeline/hopper_pipeline.traced.cu" -I"$G/hopper_pipeline" -o "$R/check.ptx"
[[ $(grep -c 'mbarrier.arrive.*relaxed' "$R/check.ptx") -ge 2 ]] ||
  { echo "prepare_recorder6.sh: the relaxed arrives are not in the PTX" >&2; exit 1; }
rm "$R/check.ptx"
echo "$R: relaxed arrives, PTX built"
du -sh .carry
