#!/usr/bin/env bash
# Here, from the repository root, after bench/cutlass/sweep.py (placement roles: the annotated CuTe
# Hopper tutorial GEMM in build-cutlass/sweep/tutorial/): the tutorial with two more placements of
# one sample, rewritten traced into .carry/sweep/tutorial_samples/<variant>/ (carried inside
# .carry/sweep.tgz, which this script refreshes; bench/cutlass/gpu_rows.sh builds and times them):
#   loopN  TRACE_SAMPLE(<linear CTA index> % N == 0); before the consumer's k-loop (its
#          CUTE_NO_UNROLL after it), as docs/annotations.md shows a sample (N = 8, 64);
#   ctaN   TRACE_SAMPLE_REST(<linear CTA index> % N == 0); right after the shared memory's
#          declarations (a sample may not copy a __shared__ declaration): one CTA in N runs the
#          recording copy of the rest of the kernel, the others the plain one;
#   looptrue, loopfalse  the loop's sample with a condition always / never true at run time;
#   pred8  one copy of the k-loop, its markers under TRACE_RANGE_IF / TRACE_RECORD_IF on 1 CTA
#          in 8;
#   predk8  the same on 1 k-tile in 8 of every CTA (every CTA does the same recording work);
#   loopcl8, predcl8  loop8 and pred8 on 1 cluster in 8 (both CTAs of a cluster of 2).
# Each variant's strip must give CUTLASS's tutorial back byte for byte; ptxas's registers and
# spills of every kernel are written to .carry/sweep/tutorial_samples/ptxas.txt.
#   bash bench/cutlass/tutorial_samples.sh [BUILD_DIR]     (TUTORIAL_PTXAS=0: skip the ptxas report)
set -euo pipefail
B=${1:-build}
W=$PWD/build-cutlass/sweep
T=$W/tutorial/wgmma_tma_sm90.cu
O=$PWD/.carry/sweep/tutorial_samples
rm -rf "$O" && mkdir -p "$O"
rewrite() { # NAME: strip of $O/NAME/wgmma_tma_sm90.cu gives CUTLASS's tutorial back; then --traced
  "$B/bin/trace-rewrite" "$O/$1/wgmma_tma_sm90.cu" -o "$O/$1/stripped.cu"
  cmp "$O/$1/stripped.cu" .carry/sweep/tutorial/plain/wgmma_tma_sm90.cu
  rm "$O/$1/stripped.cu"
  "$B/bin/trace-rewrite" --traced "$O/$1/wgmma_tma_sm90.cu" --cuda-gpu-arch=sm_90a \
    -o "$O/$1/wgmma_tma_sm90.traced.cu" -- -std=c++17 -I"$W/ann_roles/include" \
    -I"$W/util/include" -I"$PWD/runtime/include" >"$O/$1/rewrite.txt" 2>&1
}
variant() { # NAME before|after ANCHOR LINE: LINE on a line of its own before or after ANCHOR's
  mkdir -p "$O/$1"
  python3 - "$T" "$O/$1/wgmma_tma_sm90.cu" "$2" "$3" "$4" <<'PY'
import sys
src, dst, where, anchor, line = sys.argv[1:]
text = open(src).read()
at = text.index(anchor)
start = text.rfind("\n", 0, at) + 1
at_line = start if where == "before" else text.index("\n", at) + 1
text = text[:at_line] + text[start:at] + line + "\n" + text[at_line:]
open(dst, "w").write(text)
PY
  rewrite "$1"
}
# The consumer's k-loop, as the tutorial writes it (a sample goes before its CUTE_NO_UNROLL).
k_loop="CUTE_NO_UNROLL
  while (k_tile_count > -K_PIPE_MAX)"
# One CTA in N by its linear index (the grid is 2-D: blockIdx.x alone would give 1 in 32 at most).
for n in 8 64; do
  variant "loop$n" before "$k_loop" "TRACE_SAMPLE((blockIdx.x + blockIdx.y * gridDim.x) % $n == 0);"
  variant "cta$n" after 'SharedStorage& smem = *reinterpret_cast<SharedStorage*>(shared_memory);' \
    "TRACE_SAMPLE_REST((blockIdx.x + blockIdx.y * gridDim.x) % $n == 0);"
done
# Whether one copy alone costs anything: the sampled shape with a condition that always holds
# (every CTA runs the recording copy) and one that never does (every CTA the plain one), both
# decided at run time.
variant looptrue before "$k_loop" "TRACE_SAMPLE(int(gridDim.x) > 0);"
variant loopfalse before "$k_loop" "TRACE_SAMPLE(int(gridDim.x) < 0);"
# One copy of the k-loop, its markers predicated (TRACE_RANGE_IF, TRACE_RECORD_IF; the explicit
# wait_full range has no _IF form and records in every CTA).
predicated() { # NAME CONDITION
  mkdir -p "$O/$1"
  python3 - "$T" "$O/$1/wgmma_tma_sm90.cu" "$2" <<'PY'
import sys
src, dst, c = sys.argv[1:]
text = open(src).read()
for old, new in [('TRACE_RANGE("k_tile",', f'TRACE_RANGE_IF({c}, "k_tile",'),
                 ('TRACE_RECORD("wgmma_issued")', f'TRACE_RECORD_IF({c}, "wgmma_issued")'),
                 ('TRACE_RANGE("tma_issue",', f'TRACE_RANGE_IF({c}, "tma_issue",')]:
    assert text.count(old) == 1, old
    text = text.replace(old, new)
open(dst, "w").write(text)
PY
  rewrite "$1"
}
predicated pred8 "(blockIdx.x + blockIdx.y * gridDim.x) % 8 == 0"
# Every CTA alike: 1 k-tile in 8 of each CTA's loop.
predicated predk8 "k_tile % 8 == 0"
# By the cluster's index (the kernel launches clusters of 2 along x): both CTAs of one cluster in
# 8 record, so no cluster holds a recording CTA beside one that does not.
cluster8="(blockIdx.x / 2 + blockIdx.y * (gridDim.x / 2)) % 8 == 0"
variant loopcl8 before "$k_loop" "TRACE_SAMPLE($cluster8);"
predicated predcl8 "$cluster8"
for v in all loop8 loop64 cta8 cta64 looptrue loopfalse pred8 predk8 loopcl8 predcl8; do
  [[ ${TUTORIAL_PTXAS:-1} == 1 ]] || break # TUTORIAL_PTXAS=0: no ptxas report (a minute a variant)
  src=$O/$v/wgmma_tma_sm90.traced.cu
  [[ $v == all ]] && src=.carry/sweep/tutorial/wgmma_tma_sm90.traced.cu
  echo "## $v" >>"$O/ptxas.txt"
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a \
    --expt-relaxed-constexpr -DNDEBUG -DCUTRACE_TRACED -I"$W/ann_roles/include" -I"$W/util/include" \
    -Iruntime/include -I"$(dirname "$src")" -Xptxas -v -cubin "$src" -o /dev/null 2>&1 |
    grep -E "Compiling entry|registers|spill|C75" >>"$O/ptxas.txt" || true
done
[[ ! -f $O/ptxas.txt ]] || cat "$O/ptxas.txt"
tar -czf .carry/sweep.tgz .carry/sweep
