#!/usr/bin/env bash
# Issue 23 on an H200: the 8-byte recorder of this tree against the 16-byte recorder of the
# checkout it is carried into, in one run. Prepare here with test/device/prepare_recorder.sh, copy
# this tree to <checkout>/.carry/<branch>/, then on the device:
#   cd .carry/<branch> && bash test/device/h200_recorder.sh [legacy checkout] [output dir]
# (defaults ../.. and $OUT). For each recorder ("r16": the checkout's 16-byte records, "r8w": this
# tree's, scoped ranges as wide 16-byte RANGE records, "r8n": this tree's with
# -DCUTRACE_NARROW_RANGES=1, ranges as narrow 8-byte RANGE records) it builds
# examples/hopper_pipeline, examples/warp_specialized, the SGEMM of bench/gpu/gemm_overhead.cu,
# bench/gpu/slice_cost.cu and bench/gpu/accuracy.cu traced, and times them by
# `ncu --clock-control none --metrics gpu__time_duration.sum` (kernel duration, recording off =
# the original kernel, on = the twin); slice_cost by its own CUDA-event medians. Writes
# <out>/recorder.tgz holding recorder/: ncu/*.csv, logs/, sass/, fixtures/ (small r8 recordings),
# summary.txt; and <out>/recorder/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
N=$PWD
L=$(cd "${1:-../..}" && pwd)
out=${2:-${OUT:-$PWD/build-recorder-out}}/recorder
export PATH=/usr/local/cuda/bin:$PATH
G=$N/.carry/gen
B=$N/build-recorder
rm -rf "$B" "$out" && mkdir -p "$B" "$out/logs" "$out/ncu" "$out/sass" "$out/fixtures"
started=$(date +%s)
budget() { (($(date +%s) - started < ${RECORDER_BUDGET_S:-500})); }
say() { echo "== $* ($(($(date +%s) - started)) s)" | tee -a "$out/summary.txt"; }
bg() { while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done; "$@" & }
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpu.txt" 2>&1
git -C "$L" log -1 --format='r16 tree: %H %s' >>"$out/summary.txt" 2>&1 || echo "r16 tree: $L" >>"$out/summary.txt"

say "build: runtime objects of both recorders"
root_of() { [[ $1 == r16 ]] && echo "$L" || echo "$N"; }
for d in r16 r8; do
  R=$(root_of $d)
  mkdir -p "$B/$d/obj"
  for f in "$R"/runtime/src/format/*.cpp "$R"/runtime/src/analysis/*.cpp \
    "$R"/runtime/src/capture/*.cpp "$R"/runtime/src/capture/outputs/all_formats.cpp; do
    bg g++ -std=c++17 -O2 -I"$R/runtime/include" -I/usr/local/cuda/include -I"$N/.carry/include" \
      -c "$f" -o "$B/$d/obj/$(basename "${f%.cpp}").o"
  done
done
drain
say "build: programs"
build() { # build <recorder> <name> <source> [nvcc options]
  local d=$1 name=$2 src=$3 R obj=r8 flags=()
  R=$(root_of "$1")
  [[ $d == r16 ]] && obj=r16
  [[ $d == r8n ]] && flags=(-DCUTRACE_NARROW_RANGES=1)
  shift 3
  mkdir -p "$B/$d"
  nvcc -std=c++17 -O3 -arch=sm_90a -Xptxas -v -I"$R/runtime/include" -I"$N/.carry/include" \
    -I"$N/examples/common" "${flags[@]}" "$@" "$src" "$B/$obj"/obj/*.o -o "$B/$d/$name" \
    >"$out/logs/build_${d}_$name.txt" 2>&1 || echo "build $d $name FAILED" | tee -a "$out/summary.txt"
}
for d in r16 r8n r8w; do
  bg build $d hopper $G/hopper_pipeline/hopper_pipeline.traced.cu -I$G/hopper_pipeline \
    -I"$N/examples/hopper_pipeline"
  bg build $d ws $G/warp_specialized/warp_specialized.traced.cu -I$G/warp_specialized \
    -I"$N/examples/warp_specialized"
  bg build $d gemm $G/gemm_traced/gemm_overhead.traced.cu -I$G/gemm_traced
  bg build $d slice_cost $G/slice_cost/slice_cost.traced.cu -I$G/slice_cost
  bg build $d accuracy $G/accuracy/accuracy.traced.cu -I$G/accuracy
done
bg nvcc -std=c++17 -O3 -arch=sm_90a -I"$N/examples/common" -I"$N/examples/hopper_pipeline" \
  $G/stripped/hopper_pipeline.cu -o "$B/hopper_stripped"
bg nvcc -std=c++17 -O3 -arch=sm_90a $G/stripped/gemm_overhead.cu -o "$B/gemm_stripped"
bg bash -c "g++ -std=c++17 -O2 -I$N/runtime/include -I$N/test -I/usr/local/cuda/include \
  -I$N/.carry/include -c $N/test/device/check_ctrace.cpp -o $B/check_ctrace.o &&
  nvcc $B/check_ctrace.o $B/r8/obj/*.o -o $B/check_ctrace" >"$out/logs/build_check_ctrace.txt" 2>&1
drain
for f in "$out"/logs/build_*.txt; do
  echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' "$f" | paste -sd' ' | cut -c1-300)" >>"$out/summary.txt"
done

say "sass"
for d in r16 r8n r8w; do
  cuobjdump -sass -fun '_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE' \
    "$B/$d/hopper" >"$out/sass/hopper_twin_$d.sass" 2>&1
  cuobjdump -sass "$B/$d/gemm" >"$out/sass/gemm_$d.sass" 2>&1
done
cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/hopper_stripped" \
  >"$out/sass/hopper_original.sass" 2>&1
# ncu_run <tag> <env/command...>: kernel durations of every launch, CSV.
ncu_run() {
  local tag=$1
  shift
  budget || { echo "ncu $tag skipped (past RECORDER_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  env CUTRACE_OUTPUT="$B/out_$tag" CUTRACE_FORMAT=ctrace timeout 240 \
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    "$@" >"$out/ncu/$tag.csv" 2>"$out/logs/ncu_$tag.err" || echo "ncu $tag rc=$?" | tee -a "$out/summary.txt"
}
say "ncu: hopper_pipeline, warp_specialized, SGEMM"
reps=${RECORDER_REPS:-10}
ncu_run hopper_stripped -k regex:ws_wgmma "$B/hopper_stripped" --repeat $reps
ncu_run gemm_stripped -k regex:sgemm "$B/gemm_stripped" 7
for d in r16 r8n r8w; do
  ncu_run hopper_$d -k regex:ws_wgmma "$B/$d/hopper" --repeat $reps
  (cd "$B/$d" && ncu_run gemm_$d -k regex:sgemm "$B/$d/gemm" 7)
done
for d in r16 r8n r8w; do
  CUTRACE_LAUNCHES=all ncu_run ws_on_$d -k regex:ws_gemm "$B/$d/ws" --repeat $reps
  CUTRACE_LAUNCHES=none ncu_run ws_off_$d -k regex:ws_gemm "$B/$d/ws" --repeat $reps
done
for d in r8n r8w; do
  ncu_run accuracy_$d -k regex:spin_ranges "$B/$d/accuracy"
done
say "decode checks of r8 recordings, small fixtures"
for f in "$B"/out_hopper_r8*/*.ctrace "$B"/out_ws_on_r8*/*.ctrace "$B"/r8*/sgemm.ctrace; do
  [[ -f $f ]] && "$B/check_ctrace" "$f" >>"$out/logs/check_r8.txt" 2>&1
  echo "check_ctrace $(basename "$f") rc=$?" | tee -a "$out/summary.txt"
done
CUTRACE_OUTPUT="$out/fixtures/hopper" CUTRACE_FORMAT=ctrace \
  "$B/r8w/hopper" --m 256 --n 256 --k 512 --ctas 2 >"$out/logs/fixture_hopper.txt" 2>&1
CUTRACE_OUTPUT="$out/fixtures/ws" CUTRACE_FORMAT=ctrace "$B/r8w/ws" >"$out/logs/fixture_ws.txt" 2>&1
for f in "$out"/fixtures/*/*.ctrace; do
  "$B/check_ctrace" "$f" >>"$out/logs/check_fixtures.txt" 2>&1
  echo "check_ctrace fixture $(basename "$f") rc=$?" | tee -a "$out/summary.txt"
done
say "slice_cost (CUDA events, interleaved medians)"
for d in r16 r8n r8w; do
  budget || break
  timeout 240 "$B/$d/slice_cost" >"$out/logs/slice_cost_$d.txt" 2>&1 || echo "slice_cost $d failed" >>"$out/summary.txt"
done
say "plain runs: accuracy and hopper timings (no ncu)"
for d in r16 r8n r8w; do
  budget || break
  timeout 120 "$B/$d/accuracy" >"$out/logs/accuracy_$d.txt" 2>&1
  timeout 120 "$B/$d/hopper" --repeat 30 >"$out/logs/hopper_time_$d.txt" 2>&1
done
say "done"
# One archive comes back (the device hands back a limited number of files), beside the summary.
tar czf "$out/../recorder.tgz" -C "$out/.." recorder && rm -rf "$out/logs" "$out/ncu" "$out/sass" "$out/fixtures"
