#!/usr/bin/env bash
# One batched H200 session (see prepare_h200.sh): builds the traced programs with nvcc, runs
# them with no host-code edits, checks the raw buffers, runs the per-event cost benchmark, and
# leaves everything in $OUT/h200_results.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD/build-h200
rm -rf "$R" && mkdir -p "$R/traces" "$R/logs" "$R/sass"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
INC="-Iruntime/include -I.carry/include -Iexamples/common -Iexamples/warp_specialized"
# The `cutrace` library: capture, every output format, analysis (runtime/CMakeLists.txt).
RUNTIME=$(ls runtime/src/{format,analysis,capture}/*.cpp runtime/src/capture/outputs/all_formats.cpp "$R/viewer_page.cpp")
NVCC="nvcc -std=c++17 -O3 -arch=sm_90 $INC"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$R/logs/gpu.txt" 2>&1

echo "== runtime objects"
mkdir -p "$R/obj"
for f in $RUNTIME; do $NVCC -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o" & done; wait
OBJ=$(ls "$R"/obj/*.o)

build() { # build <name> <traced source>
  $NVCC -I"$(dirname "$2")" "$2" $OBJ -o "$R/$1" > "$R/logs/build_$1.txt" 2>&1 ||
    { echo "BUILD FAILED: $1"; cat "$R/logs/build_$1.txt"; }
}
build warp_specialized .carry/gen/warp_specialized/warp_specialized.traced.cu &
build warp_specialized_overflow .carry/gen/warp_specialized_overflow/warp_specialized.traced.cu &
build reduction .carry/gen/reduction/reduction.traced.cu &
build early_exits .carry/gen/early_exits/early_exits.traced.cu &
build many_launches .carry/gen/many_launches/many_launches.traced.cu &
build bench_traced .carry/gen/bench_traced/event_cost.traced.cu &
build bench_traced_globaltimer .carry/gen/bench_traced_globaltimer/event_cost.traced.cu &
$NVCC .carry/gen/bench_stripped/event_cost.cu -o "$R/bench_stripped" &
g++ -std=c++17 -O2 -Iruntime/include -I.carry/include test/device/check_ctrace.cpp \
  runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" -o "$R/check_ctrace" &
wait

echo "== traced programs, no host-code edits (CUTRACE_FORMAT=ctrace,perfetto,html)"
for p in warp_specialized warp_specialized_overflow reduction early_exits; do
  CUTRACE_OUTPUT="$R/traces/$p" CUTRACE_FORMAT=ctrace,perfetto,html,json "$R/$p" \
    > "$R/logs/run_$p.txt" 2>&1
  echo "$p: exit $?"; cat "$R/logs/run_$p.txt"
  for t in "$R/traces/$p"/*.ctrace; do "$R/check_ctrace" "$t"; done 2>&1 | tee -a "$R/logs/check_$p.txt"
done
echo "== 4000 launches from 4 host threads on 4 streams (CUTRACE_MAX_LAUNCHES default)"
timer=(); [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v -o "$R/logs/many_launches_time.txt")
"${timer[@]}" env CUTRACE_OUTPUT="$R/traces/many" \
  CUTRACE_FORMAT=json "$R/many_launches" > "$R/logs/run_many_launches.txt" 2>&1
echo "exit $?; files: $(ls "$R/traces/many" | wc -l)"; grep -v "^cutrace: wrote" "$R/logs/run_many_launches.txt"
grep -E "Maximum resident|Elapsed" "$R/logs/many_launches_time.txt" 2>/dev/null
echo "== disabled (CUTRACE=0) writes nothing"
CUTRACE=0 CUTRACE_OUTPUT="$R/traces/disabled" "$R/warp_specialized" > "$R/logs/run_disabled.txt" 2>&1
echo "exit $?; files: $(ls "$R/traces/disabled" 2>/dev/null | wc -l)"

echo "== runtime demo (hand-written device.h use, overflow, explicit Recorder)"
JSON_INCLUDE=$PWD/.carry/include bash test/device/run_demo.sh sm_90 > "$R/logs/run_demo.txt" 2>&1
echo "exit $?"; tail -5 "$R/logs/run_demo.txt"
cp -r build-device/traces "$R/traces/demo" 2>/dev/null

echo "== launch entry points (cutrace/launch.h): every form recorded, then CUTRACE=0"
$NVCC test/device/launch_forms.cu $OBJ -o "$R/launch_forms" > "$R/logs/build_launch_forms.txt" 2>&1 ||
  { echo "BUILD FAILED: launch_forms"; cat "$R/logs/build_launch_forms.txt"; }
CUTRACE_FORMAT=ctrace CUTRACE_OUTPUT="$R/traces/launch_forms" "$R/launch_forms" \
  > "$R/logs/run_launch_forms.txt" 2>&1
echo "exit $?"; grep -v "^PASS" "$R/logs/run_launch_forms.txt"
rc=0
for t in "$R/traces/launch_forms"/*.ctrace; do "$R/check_ctrace" "$t" || rc=1; done \
  > "$R/logs/check_launch_forms.txt" 2>&1
echo "check_ctrace on $(ls "$R/traces/launch_forms" | wc -l) files: exit $rc"
CUTRACE=0 CUTRACE_OUTPUT="$R/traces/launch_forms_off" "$R/launch_forms" \
  > "$R/logs/run_launch_forms_off.txt" 2>&1
echo "CUTRACE=0: exit $?"; grep -v "^PASS" "$R/logs/run_launch_forms_off.txt"

echo "== per-event cost"
{
  "$R/bench_stripped" clock
  for v in stripped hand global; do "$R/bench_stripped" $v; done
  "$R/bench_traced" traced
  "$R/bench_traced_globaltimer" traced_globaltimer
} 2>&1 | tee "$R/logs/event_cost.csv"
for b in bench_stripped bench_traced; do cuobjdump -sass "$R/$b" > "$R/sass/$b.sass" 2>&1; done

tar czf "$OUT/h200_results.tgz" -C "$R" traces logs sass
ls -l "$OUT"
