#!/usr/bin/env bash
# Second, performance-only H200 session (see prepare_h200.sh): the per-event micro-benchmark and
# the tiled SGEMM, stripped and traced, interleaved three rounds so drift shows up as spread.
# Leaves $OUT/h200_perf.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD/build-h200-perf
rm -rf "$R" && mkdir -p "$R/obj" "$R/logs"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
INC="-Iruntime/include -I.carry/include"
NVCC="nvcc -std=c++17 -O3 -arch=sm_90 $INC"
for f in runtime/src/{format,analysis,capture}/*.cpp runtime/src/capture/outputs/all_formats.cpp "$R/viewer_page.cpp"; do $NVCC -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o" & done; wait
OBJ=$(ls "$R"/obj/*.o)
$NVCC -I.carry/gen/bench_traced .carry/gen/bench_traced/event_cost.traced.cu $OBJ -o "$R/ev_traced" &
$NVCC -I.carry/gen/bench_traced_globaltimer .carry/gen/bench_traced_globaltimer/event_cost.traced.cu $OBJ -o "$R/ev_traced_gt" &
$NVCC .carry/gen/bench_stripped/event_cost.cu -o "$R/ev_stripped" &
$NVCC -I.carry/gen/gemm_traced .carry/gen/gemm_traced/gemm_overhead.traced.cu $OBJ -o "$R/gemm_traced" &
$NVCC .carry/gen/bench_stripped/gemm_overhead.cu -o "$R/gemm_stripped" &
wait
cd "$R"
{
  ./ev_stripped clock
  for round in 1 2 3; do
    ./ev_stripped stripped; ./ev_traced traced; ./ev_stripped hand
    ./ev_traced_gt traced_globaltimer; ./ev_stripped global
  done
} 2>&1 | tee logs/event_cost_rounds.csv
{
  for round in 1 2 3; do ./gemm_stripped 41; ./gemm_traced 41; done
} 2>&1 | tee logs/gemm.csv
ls -la sgemm.ctrace 2>/dev/null | tee -a logs/gemm.csv
cuobjdump -sass ev_traced | grep -A400 "Function : _Z9annotatedILi8EEvPfifPN7cutrace5SlotsE" | head -400 > logs/sass_traced_fma8.txt
cuobjdump -sass ev_stripped | grep -A300 "Function : _Z9hand_bestILi8EEvPfifP5uint4" | head -300 > logs/sass_hand_fma8.txt
tar czf "$OUT/h200_perf.tgz" logs
