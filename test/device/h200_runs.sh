#!/usr/bin/env bash
# Whole runs on a GPU (prepare with test/device/prepare_h200.sh here, carry .carry): builds the
# runtime and the traced programs with nvcc, then checks that
#   - 4000 launches from 4 threads on 4 streams drain into one run file per process, with the
#     default selection, with CUTRACE_LAUNCHES=all, and with a tiny buffer pool (wait and skip);
#   - launches captured into a CUDA graph keep the capture valid and the graph's results right;
#   - every run file passes check_ctrace and trace-view renders it;
# and leaves logs, run files and rendered outputs in $OUT/runs.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD/build-runs
rm -rf "$R" && mkdir -p "$R/obj" "$R/traces" "$R/logs"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
INC="-Iruntime/include -I.carry/include -Iexamples/common -Iexamples/warp_specialized"
NVCC="nvcc -std=c++17 -O3 -arch=sm_90 $INC"
RUNTIME=$(ls runtime/src/{format,analysis,capture}/*.cpp runtime/src/capture/outputs/all_formats.cpp "$R/viewer_page.cpp")
for f in $RUNTIME; do $NVCC -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o" & done; wait
OBJ=$(ls "$R"/obj/*.o)
for p in many_launches graph_capture warp_specialized; do
  $NVCC -I.carry/gen/$p .carry/gen/$p/*.traced.cu $OBJ -lpthread -o "$R/$p" >"$R/logs/build_$p.txt" 2>&1 ||
    { echo "BUILD FAILED: $p"; cat "$R/logs/build_$p.txt"; } &
done
$NVCC bench/gpu/copy_back.cu $OBJ -lpthread -o "$R/copy_back" >"$R/logs/build_copy_back.txt" 2>&1 ||
  { echo "BUILD FAILED: copy_back"; cat "$R/logs/build_copy_back.txt"; } &
g++ -std=c++17 -O2 -Iruntime/include -I.carry/include test/device/check_ctrace.cpp \
  runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" -o "$R/check_ctrace" &
g++ -std=c++17 -O2 -Iruntime/include -I.carry/include -DCUTRACE_VERSION='"dev"' tool/trace-view/main.cpp \
  runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" -o "$R/trace-view" >"$R/logs/build_trace_view.txt" 2>&1 &
wait
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$R/logs/gpu.txt" 2>&1

run() { # run <name> <program> [args] -- with env set by the caller
  local name=$1; shift
  local t0=$(date +%s%N) timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v -o "$R/logs/$name.time")
  "${timer[@]}" "$@" >"$R/logs/$name.out" 2>"$R/logs/$name.err"
  local rc=$? t1=$(date +%s%N)
  echo "== $name: exit $rc, $(( (t1 - t0) / 1000000 )) ms, RSS $(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$R/logs/$name.time" 2>/dev/null) kB"
  cat "$R/logs/$name.out"; grep -v "^cutrace: wrote" "$R/logs/$name.err" | head -20
}
check() { # check <dir>
  ls -la "$1"
  for f in "$1"/*.ctrace; do "$R/check_ctrace" "$f" | grep -E "run:|device|FAIL|OK|VIOLATION" | head -20; done
}
CUTRACE_OUTPUT=$R/traces/many_default run many_default "$R/many_launches"; check "$R/traces/many_default"
CUTRACE_OUTPUT=$R/traces/many_all CUTRACE_LAUNCHES=all run many_all "$R/many_launches"; check "$R/traces/many_all"
CUTRACE_OUTPUT=$R/traces/many_pool_wait CUTRACE_LAUNCHES=all CUTRACE_POOL_MB=1 run many_pool_wait "$R/many_launches"
CUTRACE_OUTPUT=$R/traces/many_pool_skip CUTRACE_LAUNCHES=all CUTRACE_POOL_MB=1 CUTRACE_POOL_FULL=skip run many_pool_skip "$R/many_launches"
CUTRACE=0 CUTRACE_OUTPUT=$R/traces/many_off run many_off "$R/many_launches"
"$R/many_launches" >/dev/null 2>&1
CUTRACE_OUTPUT=$R/traces/graph CUTRACE_LAUNCHES=all run graph "$R/graph_capture" 20; check "$R/traces/graph"
CUTRACE_OUTPUT=$R/traces/ws run ws "$R/warp_specialized"; check "$R/traces/ws"
CUTRACE_OUTPUT=$R/traces/bad CUTRACE_LAUNCHES=first:x run bad_selection "$R/many_launches"
for d in many_default graph ws; do
  for f in "$R/traces/$d"/*.ctrace; do
    "$R/trace-view" "$f" --summary 2>&1 | head -30
  done
done
echo "== copy-back of one launch (8192 CTAs x 1024 threads, capacity 1024)"
"$R/copy_back" | tee "$R/logs/copy_back.md"
mkdir -p "$OUT"
tar czf "$OUT/runs.tgz" -C "$R" logs traces
ls -la "$OUT"
