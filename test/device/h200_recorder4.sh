#!/usr/bin/env bash
# Issue 23, fourth round on an H200: the staged recorder (records staged in shared memory per row,
# copied to the buffer per block and at the row's end) and the clock read, against the shipped
# direct recorder, in one run. Prepare here with test/device/prepare_recorder.sh, copy this tree
# to <checkout>/.carry/<branch>/, then on the device:
#   cd .carry/<branch> && bash test/device/h200_recorder4.sh [output dir]      (default $OUT)
# Variants (R4_VARIANTS; the switches of runtime/include/cutrace/device.h):
#   d        the shipped recorder: records stored straight to the buffer (st.global)
#   dclk     d with the 32-bit %clock read by a volatile asm (CUTRACE_CLOCK_READ=1)
#   g64      the staged code with no row staged (CUTRACE_STAGING_ROWS=0): generic-address stores
#            straight to the buffer, the block test never taken
#   s<N>     staged, N slots per row (CUTRACE_STAGING_SLOTS=N)
#   s<N>clk  s<N> with CUTRACE_CLOCK_READ=1
#   s<N>sh   s<N> storing to the staging with st.shared (CUTRACE_STAGING_SHARED=1), a direct row
#            with st.global, under a branch the same in every thread
#   o<N>     s<N> with the copy of a full block in a function of its own (CUTRACE_STAGING_COPY=1)
#   b<N>     staged in a ring of N slots whose full halves go by bulk copies (cp.async.bulk,
#            CUTRACE_STAGING_COPY=2): no branch where records are stored
# For each: examples/hopper_pipeline 4096^3 (original kernel and twin interleaved, --repeat),
# examples/warp_specialized (CUTRACE_LAUNCHES=all / none), the SGEMM of bench/gpu/gemm_overhead.cu
# (off = the stripped build), all by `ncu --clock-control none --metrics gpu__time_duration.sum`;
# bench/gpu/slice_cost.cu by its CUDA-event medians; the hopper twin's and the SGEMM's SASS;
# check_ctrace on every hopper and SGEMM recording; test/device/staging_check.cu (staged records
# equal direct ones; R4_CHECKS names its builds). R4_SLICE_SASS=1 adds slice_cost's SASS.
# Writes <out>/recorder4.tgz (recorder4/: ncu/, logs/, sass/) and <out>/recorder4/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
N=$PWD
out=${1:-${OUT:-$PWD/build-recorder4-out}}/recorder4
export PATH=/usr/local/cuda/bin:$PATH
G=$N/.carry/gen
B=$N/build-recorder4
rm -rf "$B" "$out" && mkdir -p "$B/obj" "$out/logs" "$out/ncu" "$out/sass"
budget_s=${RECORDER_BUDGET_S:-240}
source "$N/test/device/run_steps.sh"
variants=${R4_VARIANTS-"d dclk g64 s16 s64 s256 s64clk s64sh"}
flags_of() { # the nvcc switches of a variant
  local v=$1 f=()
  [[ $v == *clk ]] && f+=(-DCUTRACE_CLOCK_READ=1) && v=${v%clk}
  [[ $v == *sh ]] && f+=(-DCUTRACE_STAGING_SHARED=1) && v=${v%sh}
  case $v in
  d) ;;
  g*) f+=(-DCUTRACE_STAGING_SLOTS=${v#g} -DCUTRACE_STAGING_ROWS=0) ;;
  o*) f+=(-DCUTRACE_STAGING_SLOTS=${v#o} -DCUTRACE_STAGING_COPY=1) ;;
  b*) f+=(-DCUTRACE_STAGING_SLOTS=${v#b} -DCUTRACE_STAGING_COPY=2) ;;
  s*) f+=(-DCUTRACE_STAGING_SLOTS=${v#s}) ;;
  esac
  echo "${f[@]}"
}

say "build: runtime objects"
for f in "$N"/runtime/src/format/*.cpp "$N"/runtime/src/analysis/*.cpp \
  "$N"/runtime/src/capture/*.cpp "$N"/runtime/src/capture/outputs/all_formats.cpp; do
  bg g++ -std=c++17 -O2 -I"$N/runtime/include" -I/usr/local/cuda/include -I"$N/.carry/include" \
    -c "$f" -o "$B/obj/$(basename "${f%.cpp}").o"
done
drain
say "build: programs"
build() { # build <variant> <name> <source> [nvcc options]
  local v=$1 name=$2 src=$3
  shift 3
  mkdir -p "$B/$v"
  # shellcheck disable=SC2046
  nvcc -std=c++17 -O3 -arch=sm_90a -Xptxas -v -I"$N/runtime/include" -I"$N/.carry/include" \
    -I"$N/examples/common" $(flags_of "$v") "$@" "$src" "$B"/obj/*.o -o "$B/$v/$name" \
    >"$out/logs/build_${v}_$name.txt" 2>&1 || echo "build $v $name FAILED" | tee -a "$out/summary.txt"
}
for v in $variants; do
  bg build "$v" hopper "$G/hopper_pipeline/hopper_pipeline.traced.cu" -I"$G/hopper_pipeline" \
    -I"$N/examples/hopper_pipeline"
  bg build "$v" ws "$G/warp_specialized/warp_specialized.traced.cu" -I"$G/warp_specialized" \
    -I"$N/examples/warp_specialized"
  bg build "$v" gemm "$G/gemm_traced/gemm_overhead.traced.cu" -I"$G/gemm_traced"
  bg build "$v" slice_cost "$G/slice_cost/slice_cost.traced.cu" -I"$G/slice_cost"
done
bg nvcc -std=c++17 -O3 -arch=sm_90a "$G/stripped/gemm_overhead.cu" -o "$B/gemm_stripped"
# staging_check per way of staging (its name: the switches it adds to -DCUTRACE_STAGING_SLOTS=8)
checks=${R4_CHECKS-"generic:- shared:-DCUTRACE_STAGING_SHARED=1 copy1:-DCUTRACE_STAGING_COPY=1 bulk:-DCUTRACE_STAGING_COPY=2"}
for c in $checks; do
  f=${c#*:}
  [[ $f == - ]] && f=
  bg bash -c "nvcc -std=c++17 -O3 -arch=sm_90a -I$N/runtime/include -DCUTRACE_STAGING_SLOTS=8 \
    $f $N/test/device/staging_check.cu -o $B/staging_check_${c%%:*}" \
    >"$out/logs/build_staging_check_${c%%:*}.txt" 2>&1
done
bg bash -c "g++ -std=c++17 -O2 -I$N/runtime/include -I$N/test -I/usr/local/cuda/include \
  -I$N/.carry/include -c $N/test/device/check_ctrace.cpp -o $B/check_ctrace.o &&
  nvcc $B/check_ctrace.o $B/obj/*.o -o $B/check_ctrace" >"$out/logs/build_check_ctrace.txt" 2>&1
drain
for f in "$out"/logs/build_*.txt; do
  echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[1-9][0-9]* bytes spill stores\|[0-9]* bytes smem' "$f" | paste -sd' ' | cut -c1-300)" >>"$out/summary.txt"
done

say "staged records equal direct ones"
for c in $checks; do
  echo "${c%%:*} (${c#*:}):" | tee -a "$out/summary.txt"
  timeout 60 "$B/staging_check_${c%%:*}" 2>&1 | tee -a "$out/summary.txt"
done

say "sass"
for v in $variants; do
  cuobjdump -sass -fun '_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE' \
    "$B/$v/hopper" >"$out/sass/hopper_${v}_twin.sass" 2>&1
  cuobjdump -sass "$B/$v/gemm" >"$out/sass/gemm_$v.sass" 2>&1
  [[ -n ${R4_SLICE_SASS-} ]] && cuobjdump -sass "$B/$v/slice_cost" >"$out/sass/slice_cost_$v.sass" 2>&1
done
cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/d/hopper" >"$out/sass/hopper_original.sass" 2>&1

ncu_run() { # ncu_run <tag> <command...>: kernel durations of every launch, CSV
  local tag=$1
  shift
  budget || { echo "ncu $tag skipped (past RECORDER_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  env CUTRACE_OUTPUT="$B/out_$tag" CUTRACE_FORMAT=ctrace timeout 120 \
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    "$@" >"$out/ncu/$tag.csv" 2>"$out/logs/ncu_$tag.err" || echo "ncu $tag rc=$?" | tee -a "$out/summary.txt"
}
reps=${RECORDER_REPS:-10}
say "ncu: hopper_pipeline per variant (original and twin interleaved, --repeat $reps)"
for v in $variants; do
  ncu_run "hopper_$v" -k regex:ws_wgmma "$B/$v/hopper" --repeat "$reps"
done
say "ncu: SGEMM"
ncu_run gemm_stripped -k regex:sgemm "$B/gemm_stripped" 7
for v in $variants; do
  (cd "$B/$v" && ncu_run "gemm_$v" -k regex:sgemm "$B/$v/gemm" 7)
done
say "ncu: warp_specialized"
for v in $variants; do
  CUTRACE_LAUNCHES=all ncu_run "ws_on_$v" -k regex:ws_gemm "$B/$v/ws" --repeat "$reps"
  CUTRACE_LAUNCHES=none ncu_run "ws_off_$v" -k regex:ws_gemm "$B/$v/ws" --repeat "$reps"
done
say "decode checks (check_ctrace) of the recordings"
for v in $variants; do
  for f in "$B/out_hopper_$v"/*.ctrace "$B/$v/sgemm.ctrace" "$B/out_ws_on_$v"/*.ctrace; do
    [[ -f $f ]] || continue
    "$B/check_ctrace" "$f" >>"$out/logs/check_$v.txt" 2>&1
    echo "check_ctrace $v $(basename "$f") rc=$?" | tee -a "$out/summary.txt"
  done
done
say "slice_cost (CUDA events, interleaved medians)"
for v in $variants; do
  budget || break
  timeout 60 "$B/$v/slice_cost" >"$out/logs/slice_cost_$v.txt" 2>&1 || echo "slice_cost $v failed" >>"$out/summary.txt"
done
say "done"
tar czf "$out/../recorder4.tgz" -C "$out/.." recorder4 && rm -rf "$out/logs" "$out/ncu" "$out/sass"
ls -la "$out/.."
