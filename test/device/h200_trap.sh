#!/usr/bin/env bash
# A trapping kernel on the H200 (see prepare_h200.sh): device-memory buffers cannot be copied back
# after a trap; CUTRACE_MAPPED=1 buffers can. Leaves $OUT/h200_trap.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD/build-h200-trap
rm -rf "$R" && mkdir -p "$R/obj" "$R/logs" "$R/traces"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
NVCC="nvcc -std=c++17 -O3 -arch=sm_90 -Iruntime/include -I.carry/include"
for f in runtime/src/{format,analysis,capture}/*.cpp runtime/src/capture/outputs/all_formats.cpp "$R/viewer_page.cpp"; do $NVCC -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o" & done; wait
$NVCC -I.carry/gen/trap .carry/gen/trap/trap.traced.cu "$R"/obj/*.o -o "$R/trap"
g++ -std=c++17 -O2 -Iruntime/include -I.carry/include test/device/check_ctrace.cpp \
  runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" -o "$R/check_ctrace"
for mode in device mapped; do
  echo "== buffers in $mode memory"
  mapped=0; [[ $mode == mapped ]] && mapped=1
  CUTRACE_MAPPED=$mapped CUTRACE_OUTPUT="$R/traces/$mode" CUTRACE_FORMAT=ctrace,json \
    "$R/trap" > "$R/logs/run_$mode.txt" 2>&1
  echo "exit $?"; cat "$R/logs/run_$mode.txt"
  for t in "$R/traces/$mode"/*.ctrace; do
    [[ -e $t ]] && "$R/check_ctrace" "$t" 2>&1 | tee "$R/logs/check_$mode.txt"
    [[ -e $t ]] && cp "$t" "$R/logs/doomed_$mode.ctrace"
  done
done
tar czf "$OUT/h200_trap.tgz" -C "$R" logs
