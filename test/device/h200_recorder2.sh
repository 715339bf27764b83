#!/usr/bin/env bash
# Issue 23, second round on an H200: where the recording cost of the hopper GEMM goes. Prepare
# here with test/device/prepare_recorder2.sh, copy this tree to <checkout>/.carry/<branch>/, then
# on the device:
#   cd .carry/<branch> && bash test/device/h200_recorder2.sh [output dir]     (default $OUT)
# 1. ncu source counters (per-SASS-instruction warp stall samples), warp state and scheduler
#    statistics of one 4096^3 launch of the original kernel and of its recording twin.
# 2. The recorder's measurement switch CUTRACE_RECORDER_PROBE (runtime/include/cutrace/device.h)
#    p0..p8, and p0 with some of the example's ranges removed (prod: producer ranges only, cons:
#    consumer ranges only, nowait / nocompute: all but the consumer's "wait" / "compute") and with
#    -DHOPPER_MMA_IN_FLIGHT=1 (inflight): kernel duration by `ncu --clock-control none --metrics
#    gpu__time_duration.sum` (original and twin interleaved in one process), the SGEMM of
#    bench/gpu/gemm_overhead.cu per probe, slice_cost per probe that changes instants, the twin's
#    SASS per build. Writes <out>/recorder2.tgz (recorder2/: ncu/, logs/, sass/, stall/) and
#    <out>/recorder2/summary.txt.
# A short call measures a subset: R2_HOPPERS, R2_GEMMS, R2_SLICES, R2_TIMED name the builds and
# timings to run, R2_STALLS the source-counter profiles (original twin_p0 twin_p5; "" for none).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
N=$PWD
out=${1:-${OUT:-$PWD/build-recorder2-out}}/recorder2
export PATH=/usr/local/cuda/bin:$PATH
G=$N/.carry/gen
B=$N/build-recorder2
rm -rf "$B" "$out" && mkdir -p "$B/obj" "$out/logs" "$out/ncu" "$out/sass" "$out/stall"
started=$(date +%s)
budget() { (($(date +%s) - started < ${RECORDER_BUDGET_S:-360})); }
say() { echo "== $* ($(($(date +%s) - started)) s)" | tee -a "$out/summary.txt"; }
bg() { while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done; "$@" & }
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpu.txt" 2>&1
ncu --version >>"$out/logs/gpu.txt" 2>&1

say "build: runtime objects"
for f in "$N"/runtime/src/format/*.cpp "$N"/runtime/src/analysis/*.cpp \
  "$N"/runtime/src/capture/*.cpp "$N"/runtime/src/capture/outputs/all_formats.cpp; do
  bg g++ -std=c++17 -O2 -I"$N/runtime/include" -I/usr/local/cuda/include -I"$N/.carry/include" \
    -c "$f" -o "$B/obj/$(basename "${f%.cpp}").o"
done
drain
say "build: programs"
build() { # build <name> <probe> <source> [nvcc options]
  local name=$1 probe=$2 src=$3
  shift 3
  nvcc -std=c++17 -O3 -arch=sm_90a -Xptxas -v -I"$N/runtime/include" -I"$N/.carry/include" \
    -I"$N/examples/common" -DCUTRACE_RECORDER_PROBE="$probe" "$@" "$src" "$B"/obj/*.o \
    -o "$B/$name" >"$out/logs/build_$name.txt" 2>&1 || echo "build $name FAILED" | tee -a "$out/summary.txt"
}
HP=(-I"$G/hopper_pipeline" -I"$N/examples/hopper_pipeline")
# What to build and measure (a short device call measures a subset).
hoppers=${R2_HOPPERS-"p0 p1 p2 p3 p4 p5 p6 prod cons nowait nocompute inflight"}
gemms=${R2_GEMMS-"0 1 2 3 4 5 6"}
slices=${R2_SLICES-"0 4 5 6"}
for h in $hoppers; do
  case $h in
  p?) bg build hopper_$h ${h#p} $G/hopper_pipeline/hopper_pipeline.traced.cu "${HP[@]}" ;;
  inflight) bg build hopper_inflight 0 $G/hopper_pipeline/hopper_pipeline.traced.cu "${HP[@]}" \
    -DHOPPER_MMA_IN_FLIGHT=1 ;;
  *) bg build hopper_$h 0 $G/hopper_$h/hopper_pipeline.traced.cu -I"$G/hopper_$h" \
    -I"$N/examples/hopper_pipeline" ;;
  esac
done
[[ " $hoppers " == *" p5 "* ]] || bg build hopper_p5 5 $G/hopper_pipeline/hopper_pipeline.traced.cu "${HP[@]}"
for p in $gemms; do
  bg build gemm_p$p $p $G/gemm_traced/gemm_overhead.traced.cu -I$G/gemm_traced
done
for p in $slices; do
  bg build slice_cost_p$p $p $G/slice_cost/slice_cost.traced.cu -I$G/slice_cost
done
[[ -n $gemms ]] && bg nvcc -std=c++17 -O3 -arch=sm_90a $G/stripped/gemm_overhead.cu -o "$B/gemm_stripped"
drain
for f in "$out"/logs/build_*.txt; do
  echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers' "$f" | paste -sd' ' | cut -c1-200)" >>"$out/summary.txt"
done

say "sass of every hopper build (twin and original)"
for h in $hoppers; do
  h=hopper_$h
  cuobjdump -sass -fun '_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE' \
    "$B/$h" >"$out/sass/${h}_twin.sass" 2>&1
done
cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/hopper_p0" >"$out/sass/hopper_original.sass" 2>&1
[[ -f $B/hopper_inflight ]] && cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/hopper_inflight" >"$out/sass/hopper_inflight_original.sass" 2>&1

say "stall analysis: ncu source counters of one 4096^3 launch"
ncu --help >"$out/logs/ncu_help.txt" 2>&1
stall() { # stall <tag> <binary> <kernel regex>
  local tag=$1 bin=$2 k=$3
  budget || { echo "stall $tag skipped (past RECORDER_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  CUTRACE_OUTPUT="$B/out_stall_$tag" CUTRACE_FORMAT=ctrace timeout 90 ncu --clock-control none --section SourceCounters --section WarpStateStats \
    --section SchedulerStats --metrics gpu__time_duration.sum -k "regex:$k" --launch-skip 1 \
    --launch-count 1 -f -o "$out/stall/$tag" "$bin" --repeat 2 >"$out/logs/stall_$tag.txt" 2>&1 ||
    echo "stall $tag rc=$?" | tee -a "$out/summary.txt"
  local r=$out/stall/$tag.ncu-rep
  [[ -f $r ]] || return
  ncu --import "$r" --page details --csv >"$out/stall/${tag}_details.csv" 2>&1
  ncu --import "$r" --page source --csv --print-source sass >"$out/stall/${tag}_source.csv" 2>"$out/logs/source_$tag.err" ||
    ncu --import "$r" --page source --csv >"$out/stall/${tag}_source.csv" 2>>"$out/logs/source_$tag.err" ||
    ncu --import "$r" --page raw --csv >"$out/stall/${tag}_raw.csv" 2>>"$out/logs/source_$tag.err"
  echo "stall $tag: $(wc -c <"$out/stall/${tag}_source.csv") bytes of source page" | tee -a "$out/summary.txt"
}
stalls=" ${R2_STALLS-original twin_p0 twin_p5} "
[[ $stalls == *" original "* ]] && stall original "$B/hopper_p0" '^ws_wgmma_gemm$'
[[ $stalls == *" twin_p0 "* ]] && stall twin_p0 "$B/hopper_p0" 'cutrace_traced'

# ncu_run <tag> <command...>: kernel durations of every launch, CSV.
ncu_run() {
  local tag=$1
  shift
  budget || { echo "ncu $tag skipped (past RECORDER_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  env CUTRACE_OUTPUT="$B/out_$tag" CUTRACE_FORMAT=ctrace timeout 120 \
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    "$@" >"$out/ncu/$tag.csv" 2>"$out/logs/ncu_$tag.err" || echo "ncu $tag rc=$?" | tee -a "$out/summary.txt"
}
reps=${RECORDER_REPS:-15}
say "ncu: hopper_pipeline builds (original and twin interleaved, --repeat $reps)"
for h in $hoppers; do
  ncu_run hopper_$h -k regex:ws_wgmma "$B/hopper_$h" --repeat $reps
done
[[ $stalls == *" twin_p5 "* ]] && stall twin_p5 "$B/hopper_p5" 'cutrace_traced'
say "ncu: SGEMM"
[[ -n $gemms ]] && ncu_run gemm_stripped -k regex:sgemm "$B/gemm_stripped" 5
for p in $gemms; do
  (cd "$B" && ncu_run gemm_p$p -k regex:sgemm "$B/gemm_p$p" 5)
done
say "slice_cost (CUDA events, interleaved medians)"
for p in $slices; do
  budget || break
  timeout 60 "$B/slice_cost_p$p" >"$out/logs/slice_cost_p$p.txt" 2>&1 || echo "slice_cost p$p failed" >>"$out/summary.txt"
done
say "plain timings of the hopper builds (no ncu)"
for h in ${R2_TIMED:-hopper_p0 hopper_p5 hopper_p6}; do
  budget || break
  [[ -f $B/$h ]] || continue
  CUTRACE_OUTPUT="$B/out_time_$h" CUTRACE_FORMAT=ctrace timeout 60 "$B/$h" --repeat 30 >"$out/logs/time_$h.txt" 2>&1
done
say "done"
tar czf "$out/../recorder2.tgz" -C "$out/.." recorder2 && rm -rf "$out/logs" "$out/ncu" "$out/sass" "$out/stall"
ls -la "$out/.."
