#!/usr/bin/env bash
# Issue 23, sixth recorder run on an H200: what the next recorder step should be. Prepare here with
# test/device/prepare_recorder6.sh, copy this tree to <checkout>/.carry/<branch>/, then on the
# device:
#   cd .carry/<branch> && bash test/device/h200_recorder6.sh [output dir]      (default $OUT)
# Builds (every one names its recorder switches, so a run measures the same code whatever the
# default is):
#   c2    the shipped recorder (-DCUTRACE_COMPACT=2)
#   a     c2 on the copies where one clock read ends a range and begins the next (recorder6_edit.py)
#   b     c2 on the copies where the first range's record is stored where the second ends (after
#         the stage's release / the TMA issue)
#   ab    both
#   acons, aprod, bcons, bprod, abcons, abprod   a, b, ab with the consumers' pair alone or the
#         producer's alone rewritten (hopper only; the SGEMM has one role)
#   s2, s8, s64, s0  c2 on copies whose k-loop ranges are TRACE_RANGE_IF(stage % N == 0, ...)
#         (every N-th stage recorded), s0 TRACE_RANGE_IF(m < 0, ...) (none: the predicated
#         markers alone)
#   s<N>br  s<N> with -DCUTRACE_RANGE_IF_BRANCH=1: TRACE_RANGE_IF's clock reads and store under
#         a branch on its condition instead of predicated
#   v8, v0, v1  c2 on copies whose k-loops stand twice, annotated for every 8th tile of the CTA
#         (v8), for none (v0), for all (v1), without markers otherwise (recorder9_versions.py)
#   t8, t0, t1  the same written by the rewriter from TRACE_SAMPLE (prepare_recorder6.sh): every
#         8th tile, none, all (conditions decided at run time); the SGEMM's t8 samples its whole
#         k-loop in every 8th CTA
#   c2cs  c2 with evict-first stores (-DCUTRACE_EVICT_FIRST=1)
#   d     the stores before c2 (-DCUTRACE_COMPACT=0), the base of the two probes below
#   p2    -DCUTRACE_RECORDER_PROBE=2: a 64-bit write pointer (d otherwise)
#   p3    -DCUTRACE_RECORDER_PROBE=3: evict-first stores (d otherwise)
#   p4, p5  -DCUTRACE_RECORDER_PROBE=4 / 5: the stores without clock reads, the clock reads
#         without stores (d otherwise)
#   <v>rel  build <v> against a copy of examples/hopper_pipeline whose mbarrier arrives are
#         `.relaxed.cta` instead of the default `.release.cta` (prepare_recorder6.sh makes it):
#         whether the record stores cost because the arrive after them must order them (hopper
#         only; the original kernel in the same binary gets the same arrives, so on / off compares)
#   <v>pre  build <v> against the recorder headers of .carry/rows/include (bench/cutlass/
#         prepare_rows.sh: the tree before rows were sized at launch), linked with this tree's
#         runtime: the recorder's own cost side by side (timing only: those headers' KernelMap
#         predates rows_sized_at_launch, so their run files are not decoded)
# Programs, by `ncu --clock-control none --metrics gpu__time_duration.sum` per launch:
#   hopper  examples/hopper_pipeline 4096^3, original kernel and twin interleaved (--repeat),
#           R6_ROUNDS processes per build, the builds taken in turn; plus the never-annotated build
#   gemm    the SGEMM of bench/gpu/gemm_overhead.cu (8 launches each of (256) and (256, 5)),
#           R6_GEMM_ROUNDS processes per build, against the stripped build
#   accuracy  bench/gpu/accuracy.cu with c2, under ncu (its launches' durations against the span
#           its events show) and alone (recorded - measured cycles)
# and the twins' SASS, check_ctrace on the recordings, test/device/compact_check.cu for c2 and
# c2cs. Writes <out>/recorder6.tgz (recorder6/: ncu/, logs/, sass/) and <out>/recorder6/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
N=$PWD
out=${1:-${OUT:-$PWD/build-recorder6-out}}/recorder6
export PATH=/usr/local/cuda/bin:$PATH
G=$N/.carry/gen
B=$N/build-recorder6
rm -rf "$B" "$out" && mkdir -p "$B" "$out/logs" "$out/ncu" "$out/sass"
budget_s=${R6_BUDGET_S:-330}
source "$N/test/device/run_steps.sh"
nvcc --version | tail -1 >>"$out/logs/gpu.txt"
variants=${R6_VARIANTS-"c2 a b ab c2cs d p2 p3"}
flags_of() {
  case $1 in
  *rel) flags_of "${1%rel}" ;;
  *pre) flags_of "${1%pre}" ;;
  s[0-9]*br) echo -DCUTRACE_COMPACT=2 -DCUTRACE_RANGE_IF_BRANCH=1 ;;
  c2 | a | b | ab | *cons | *prod | s[0-9]* | v[0-9]* | t[0-9]*) echo -DCUTRACE_COMPACT=2 ;;
  c2cs) echo -DCUTRACE_COMPACT=2 -DCUTRACE_EVICT_FIRST=1 ;;
  d) echo -DCUTRACE_COMPACT=0 ;;
  p2) echo -DCUTRACE_RECORDER_PROBE=2 ;;
  p3) echo -DCUTRACE_RECORDER_PROBE=3 ;;
  p4) echo -DCUTRACE_RECORDER_PROBE=4 ;;
  p5) echo -DCUTRACE_RECORDER_PROBE=5 ;;
  esac
}
source_of() { # source_of <variant> <generated dir>: the dir of that variant's copy
  case $1 in
  *rel) source_of "${1%rel}" "$2" ;;
  *pre) source_of "${1%pre}" "$2" ;;
  s[0-9]*br) source_of "${1%br}" "$2" ;;
  a | b | ab | *cons | *prod | s[0-9]* | v[0-9]* | t[0-9]*) echo "$G/${2}_$1" ;;
  *) echo "$G/$2" ;;
  esac
}

say "build: runtime (test/device/build_runtime_gpp.sh)"
bash test/device/build_runtime_gpp.sh "$B/rt" "$out/logs/build_runtime.txt" -I"$N/.carry/include" || exit 1
RT=("$B/rt/libcutrace.a" "$B/rt/libcutrace_analysis.a" "$B/rt/libcutrace_format.a" -lpthread)
say "build: programs"
build() { # build <variant> <name> <source> [nvcc options]
  local v=$1 name=$2 src=$3
  shift 3
  mkdir -p "$B/$v"
  # shellcheck disable=SC2046
  local inc=$N/runtime/include
  [[ $v == *pre ]] && inc=$N/.carry/rows/include
  nvcc -std=c++17 -O3 -arch=sm_90a -Xptxas -v -I"$inc" -I"$N/.carry/include" \
    -I"$N/examples/common" $(flags_of "$v") "$@" "$src" "${RT[@]}" -o "$B/$v/$name" \
    >"$out/logs/build_${v}_$name.txt" 2>&1 || echo "build $v $name FAILED" | tee -a "$out/summary.txt"
}
for v in $variants; do
  H=$(source_of "$v" hopper_pipeline) M=$(source_of "$v" gemm_traced) E=$N/examples/hopper_pipeline
  [[ $v == *rel ]] && E=$G/hopper_relaxed
  bg build "$v" hopper "$H/hopper_pipeline.traced.cu" -I"$H" -I"$E"
  [[ -d $M && $v != *rel ]] && bg build "$v" gemm "$M/gemm_overhead.traced.cu" -I"$M"
done
bg build c2 accuracy "$G/accuracy/accuracy.traced.cu" -I"$G/accuracy"
bg nvcc -std=c++17 -O3 -arch=sm_90a "$G/stripped/gemm_overhead.cu" -o "$B/gemm_stripped"
bg nvcc -std=c++17 -O3 -arch=sm_90a -I"$N/examples/common" -I"$N/examples/hopper_pipeline" \
  "$G/stripped/hopper_pipeline.cu" -o "$B/hopper_plain"
for c in c2 c2cs; do
  # shellcheck disable=SC2046
  bg bash -c "nvcc -std=c++17 -O3 -arch=sm_90a -I$N/runtime/include $(flags_of "$c") \
    $N/test/device/compact_check.cu -o $B/compact_check_$c" >"$out/logs/build_compact_check_$c.txt" 2>&1
done
bg bash -c "g++ -std=c++17 -O2 -I$N/runtime/include -I$N/test -I/usr/local/cuda/include \
  -I$N/.carry/include -c $N/test/device/check_ctrace.cpp -o $B/check_ctrace.o &&
  nvcc $B/check_ctrace.o ${RT[*]} -o $B/check_ctrace" >"$out/logs/build_check_ctrace.txt" 2>&1
drain
for f in "$out"/logs/build_*.txt; do
  echo "$(basename "$f" .txt): $(grep -o 'Used [0-9]* registers\|[1-9][0-9]* bytes spill stores' "$f" | paste -sd' ' | cut -c1-300)" >>"$out/summary.txt"
done

if [[ ! -x $B/c2/hopper ]]; then # nothing to measure: the logs say why
  tar czf "$out/../recorder6.tgz" -C "$out/.." recorder6
  exit 1
fi

say "records as the model says (compact_check)"
for c in c2 c2cs; do
  echo "$c ($(flags_of "$c")):" | tee -a "$out/summary.txt"
  timeout 60 "$B/compact_check_$c" 2>&1 | tail -1 | tee -a "$out/summary.txt"
done

say "sass"
twin='_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE'
for v in $variants; do
  cuobjdump -sass -fun "$twin" "$B/$v/hopper" >"$out/sass/hopper_${v}_twin.sass" 2>&1
  [[ -x $B/$v/gemm ]] && cuobjdump -sass "$B/$v/gemm" >"$out/sass/gemm_$v.sass" 2>&1
done
cuobjdump -sass -fun '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii' "$B/c2/hopper" >"$out/sass/hopper_original.sass" 2>&1
cuobjdump -sass "$B/gemm_stripped" >"$out/sass/gemm_stripped.sass" 2>&1

ncu_run() { # ncu_run <tag> <command...>: kernel durations of every launch, CSV
  local tag=$1
  shift
  budget || { echo "ncu $tag skipped (past R6_BUDGET_S)" | tee -a "$out/summary.txt"; return; }
  env CUTRACE_OUTPUT="$B/out_$tag" CUTRACE_FORMAT=ctrace timeout 120 \
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
    "$@" >"$out/ncu/$tag.csv" 2>"$out/logs/ncu_$tag.err" || echo "ncu $tag rc=$?" | tee -a "$out/summary.txt"
}
say "accuracy (c2): under ncu, then alone"
ncu_run accuracy_c2 -k regex:spin_ranges "$B/c2/accuracy"
timeout 120 "$B/c2/accuracy" >"$out/logs/accuracy_c2.txt" 2>&1 || echo "accuracy rc=$?" | tee -a "$out/summary.txt"
reps=${R6_REPS:-10}
hopper_round() {
  say "ncu: hopper_pipeline round $1 (original and twin interleaved, --repeat $reps)"
  ncu_run "hopper_plain_r$1" -k regex:ws_wgmma "$B/hopper_plain" --repeat "$reps"
  for v in $variants; do
    ncu_run "hopper_${v}_r$1" -k regex:ws_wgmma "$B/$v/hopper" --repeat "$reps"
  done
}
gemm_round() {
  say "ncu: SGEMM round $1"
  ncu_run "gemm_stripped_r$1" -k regex:sgemm "$B/gemm_stripped" 7
  for v in $variants; do
    [[ -x $B/$v/gemm ]] || continue
    mkdir -p "$B/$v/r$1" && (cd "$B/$v/r$1" && ncu_run "gemm_${v}_r$1" -k regex:sgemm "$B/$v/gemm" 7)
  done
}
# SGEMM round g after hopper round 2g, so a run cut by R6_BUDGET_S still has both programs.
hr=${R6_ROUNDS:-4} gr=${R6_GEMM_ROUNDS:-2}
for r in $(seq 1 "$hr"); do
  hopper_round "$r"
  ((r % 2 == 0 && r / 2 <= gr)) && gemm_round $((r / 2))
done
for g in $(seq $((hr / 2 + 1)) "$gr"); do gemm_round "$g"; done
say "decode checks (check_ctrace) of the first round's recordings"
for v in $variants; do
  for f in "$B/out_hopper_${v}_r1"/*.ctrace "$B/$v/r1/sgemm.ctrace" "$B/out_accuracy_$v"/*.ctrace; do
    [[ -f $f ]] || continue
    echo "## $f" >>"$out/logs/check_$v.txt"
    "$B/check_ctrace" "$f" >>"$out/logs/check_$v.txt" 2>&1
    echo "check_ctrace $v ${f#"$B/"} rc=$? $(stat -c %s "$f") bytes" | tee -a "$out/summary.txt"
  done
done
say "done"
tar czf "$out/../recorder6.tgz" -C "$out/.." recorder6 && rm -rf "$out/logs" "$out/ncu" "$out/sass"
ls -la "$out/.."
