#!/usr/bin/env bash
# Issue 23: compact records and the fewest instructions per event, on an H200, in one run: the
# earlier stores against cutrace/device_compact.h's (CUTRACE_COMPACT), each with wide and narrow
# scoped ranges. Prepare here with test/device/prepare_compact.sh, copy this
# tree to <checkout>/.carry/<branch>/, then on the device:
#   cd .carry/<branch> && bash test/device/h200_compact.sh [output dir]      (default $OUT)
# Variants (COMPACT_VARIANTS; compile switches of runtime/include/cutrace/device.h, which the
# script always names, so a run measures the same builds whatever the default is):
#   d    the stores before (CUTRACE_COMPACT=0): wide RANGEs, each slot its own address, buffer +
#        (first + cursor) * 8, and its own capacity test
#   dn   d with narrow RANGEs (CUTRACE_NARROW_RANGES=1)
#   c    CUTRACE_COMPACT=1: a record's second slot by the store's immediate offset, capacity tests
#        against constants, each record addressed from the row's record 0 kept in registers
#   cn   c with narrow RANGEs: 8 bytes for a range without payload
#   c2   CUTRACE_COMPACT=2 (the default since this run): c with each record addressed from the
#        buffer (a kernel parameter) and the row's first slot; c2n with narrow RANGEs
# Programs, by `ncu --clock-control none --metrics gpu__time_duration.sum` per launch:
#   hopper      examples/hopper_pipeline 4096^3 (ranges with payloads): original kernel and twin
#               interleaved (--repeat); plus the never-annotated build (plain) and the traced
#               build with CUTRACE=0
#   hopper_np   the same with its ranges' payloads removed (prepare_compact.sh)
#   gemm        the SGEMM of bench/gpu/gemm_overhead.cu (7 launches each of (256) and (256, 5));
#               off = the stripped build (the bench launches the twin itself, so CUTRACE=0 does
#               not apply)
#   gemm_np     the SGEMM with its ranges' payloads removed
# and bench/gpu/slice_cost.cu by its CUDA-event medians (instants with payload); the SASS of the
# hopper twins, SGEMMs and slice_cost; check_ctrace on every recording; test/device/compact_check.cu
# per recorder build (COMPACT_CHECKS). Writes <out>/compact.tgz (compact/: ncu/, logs/, sass/) and
# <out>/compact/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
N=$PWD
out=${1:-${OUT:-$PWD/build-compact-out}}/compact
export PATH=/usr/local/cuda/bin:$PATH
G=$N/.carry/gen
B=$N/build-compact
rm -rf "$B" "$out" && mkdir -p "$B/obj" "$out/logs" "$out/ncu" "$out/sass"
budget_s=${COMPACT_BUDGET_S:-300}
source "$N/test/device/run_steps.sh"
variants=${COMPACT_VARIANTS-"d dn c cn"}
flags_of() { # d, dn, c, cn, c2, c2n
  local v=$1 f=()
  [[ $v == *n ]] && f+=(-DCUTRACE_NARROW_RANGES=1) && v=${v%n}
  case $v in
  d) f+=(-DCUTRACE_COMPACT=0) ;;
  c) f+=(-DCUTRACE_COMPACT=1) ;;
  c2) f+=(-DCUTRACE_COMPACT=2) ;;
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
  bg build "$v" hopper_np "$G/hopper_pipeline_nopay/hopper_pipeline.traced.cu" \
    -I"$G/hopper_pipeline_nopay" -I"$N/examples/hopper_pipeline"
  bg build "$v" gemm "$G/gemm_traced/gemm_overhead.traced.cu" -I"$G/gemm_traced"
  bg build "$v" gemm_np "$G/gemm_overhead_nopay/gemm_overhead.traced.cu" -I"$G/gemm_overhead_nopay"
  bg build "$v" slice_cost "$G/slice_cost/slice_cost.traced.cu" -I"$G/slice_cost"
done
bg nvcc -std=c++17 -O3 -arch=sm_90a "$G/stripped/gemm_overhead.cu" -o "$B/gemm_stripped"
bg nvcc -std=c++17 -O3 -arch=sm_90a -I"$N/examples/common" -I"$N/examples/hopper_pipeline" \
  "$G/stripped/hopper_pipeline.cu" -o "$B/hopper_plain"
checks=${COMPACT_CHECKS-"d dn c cn c2 c2n"}
for c in $checks; do
  # shellcheck disable=SC2046
  bg bash -c "nvcc -std=c++17 -O3 -arch=sm_90a -I$N/runtime/include $(flags_of "$c") \
    $N/test/device/compact_check.cu -o $B/compact_check_$c" >"$out/logs/build_compact_check_$c.txt" 2>&1
done
bg bash -c "g++ -std=c++17 -O2 -I$N/runtime/include -I$N/test -I/usr/local/cuda/include \
  -I$N/.carry/include -c $N/test/device/check_ctrace.cpp -o $B/check_ctrace.o &&
  nvcc $B/check_ctrace.o $B/obj/*.o -o $B/check_ctrace" >"$out/logs/build_check_ctrace.txt" 2>&1
drain
for f in "$out"/logs/build_*.txt; do
  echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[1-9][0-9]* bytes spill stores' "$f" | paste -sd' ' | cut -c1-300)" >>"$out/summary.txt"
done

say "compact records as the model says (compact_check)"
for c in $checks; do
  echo "$c ($(flags_of "$c")):" | tee -a "$out/summary.txt"
  timeout 60 "$B/compact_check_$c" 2>&1 | tee -a "$out/summary.txt"
done

say "sass"
twin='_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE'
for v in $variants; do
  cuobjdump -sass -fun "$twin" "$B/$v/hopper" >"$out/sass/hopper_${v}_twin.sass" 2>&1
  cuobjdump -sass -fun "$twin" "$B/$v/hopper_np" >"$out/sass/hopper_np_${v}_twin.sass" 2>&1
  cuobjdump -sass "$B/$v/gemm" >"$out/sass/gemm_$v.sass" 2>&1
  cuobjdump -sass "$B/$v/gemm_np" >"$out/sass/gemm_np_$v.sass" 2>&1
  cuobjdump -sass "$B/$v/slice_cost" >"$out/sass/slice_cost_$v.sass" 2>&1
done
cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/d/hopper" >"$out/sass/hopper_original.sass" 2>&1

ncu_run() { # ncu_run <tag> <command...>: kernel durations of every launch, CSV
  local tag=$1
  shift
  budget || { echo "ncu $tag skipped (past COMPACT_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  env CUTRACE_OUTPUT="$B/out_$tag" CUTRACE_FORMAT=ctrace timeout 120 \
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    "$@" >"$out/ncu/$tag.csv" 2>"$out/logs/ncu_$tag.err" || echo "ncu $tag rc=$?" | tee -a "$out/summary.txt"
}
reps=${COMPACT_REPS:-10}
say "ncu: hopper_pipeline (original and twin interleaved, --repeat $reps)"
ncu_run hopper_plain -k regex:ws_wgmma "$B/hopper_plain" --repeat "$reps"
CUTRACE=0 ncu_run hopper_cutrace0 -k regex:ws_wgmma "$B/d/hopper" --repeat "$reps"
for v in $variants; do
  ncu_run "hopper_$v" -k regex:ws_wgmma "$B/$v/hopper" --repeat "$reps"
  ncu_run "hopper_np_$v" -k regex:ws_wgmma "$B/$v/hopper_np" --repeat "$reps"
done
say "ncu: SGEMM"
ncu_run gemm_stripped -k regex:sgemm "$B/gemm_stripped" 7
for v in $variants; do
  (cd "$B/$v" && ncu_run "gemm_$v" -k regex:sgemm "$B/$v/gemm" 7)
  mkdir -p "$B/$v/np" && (cd "$B/$v/np" && ncu_run "gemm_np_$v" -k regex:sgemm "$B/$v/gemm_np" 7)
done
say "decode checks (check_ctrace) of the recordings"
for v in $variants; do
  for f in "$B/out_hopper_$v"/*.ctrace "$B/out_hopper_np_$v"/*.ctrace "$B/$v/sgemm.ctrace" \
    "$B/$v/np/sgemm.ctrace"; do
    [[ -f $f ]] || continue
    echo "## $f" >>"$out/logs/check_$v.txt"
    "$B/check_ctrace" "$f" >>"$out/logs/check_$v.txt" 2>&1
    echo "check_ctrace $v ${f#"$B/"} rc=$? $(ls -l "$f" | awk '{print $5}') bytes" | tee -a "$out/summary.txt"
  done
done
say "slice_cost (CUDA events, interleaved medians)"
for v in $variants; do
  budget || break
  timeout 60 "$B/$v/slice_cost" >"$out/logs/slice_cost_$v.txt" 2>&1 || echo "slice_cost $v failed" >>"$out/summary.txt"
done
say "done"
tar czf "$out/../compact.tgz" -C "$out/.." compact && rm -rf "$out/logs" "$out/ncu" "$out/sass"
ls -la "$out/.."
