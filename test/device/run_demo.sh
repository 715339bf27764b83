#!/usr/bin/env bash
# Builds trace_demo and check_ctrace with nvcc/g++ (no CMake needed), runs the demo on the GPU
# and checks the recorded files. Usage, from the repository root:
#   test/device/run_demo.sh [ARCH]         ARCH defaults to sm_90
# Needs nlohmann/json.hpp: set JSON_INCLUDE to the directory holding nlohmann/ if it is not in
# /usr/include. Writes everything under build-device/.
set -euo pipefail
ARCH=${1:-sm_90}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
OUT=build-device
JSON_FLAGS=${JSON_INCLUDE:+-I$JSON_INCLUDE}
mkdir -p "$OUT"
cmake -DOUT="$OUT/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
DECODE_SRC=$(ls runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$OUT/viewer_page.cpp")
# Capture with every output format, as library `cutrace` builds it (runtime/CMakeLists.txt).
HOST_SRC=$(ls runtime/src/capture/*.cpp runtime/src/capture/outputs/all_formats.cpp)

mkdir -p "$OUT"
"$NVCC" -arch="$ARCH" -std=c++17 -O3 -Iruntime/include $JSON_FLAGS -Xcompiler -Wall,-Wextra \
  test/device/trace_demo.cu $DECODE_SRC $HOST_SRC -o "$OUT/trace_demo"
"$NVCC" -std=c++17 -O2 -Iruntime/include $JSON_FLAGS test/device/check_ctrace.cpp $DECODE_SRC \
  -o "$OUT/check_ctrace"

rm -rf "$OUT/traces"
# CUTRACE_LAUNCH_MB=0: a kernel's first launch gets the rows its build says (256 slots), no share
# of a launch budget (docs/guide.md, "Row capacity").
CUTRACE_LAUNCH_MB=0 CUTRACE_PER_LAUNCH=1 CUTRACE_RAW=1 CUTRACE_FORMAT=ctrace \
  CUTRACE_OUTPUT="$OUT/traces" "$OUT/trace_demo"
ls -l "$OUT/traces"

# pipeline: 8 CTAs x 6 tiles, CTAs 3 and 7 return inside tile 2 (3 tiles, no epi);
# CTA 0's block row records its range (2 slots), then 300 spins (spin 0 one slot, spins 1-299 two:
# their payload): 601 slots attempted. The first launch's 256 slots keep the range and spins
# 0-127 (spin 127 without its payload, split at the row's end) and drop 345 slots; a launch
# recorded after that one drained is sized from it (601 + 150 + 2 slots) and keeps all 300:
# pipeline_2, after a flush. pipeline_1 was queued right behind the first, before it drained,
# so it normally has 256 slots too (either is right).
# Flows load->epi: one per CTA that reached epi.
check_pipeline() { # FILE SPINS DROPPED
  "$OUT/check_ctrace" --expect load=8 --expect tile=42 --expect iter=42 --expect epi=6 \
    --expect spin=$2 --expect-dropped $3 --expect-flows 6 "$OUT/traces/$1.ctrace"
}
check_pipeline pipeline 128 345
check_pipeline pipeline_1 128 345 || check_pipeline pipeline_1 300 0
check_pipeline pipeline_2 300 0
# ticker: 8 CTAs x 4 steps, one tick per step; nothing dropped.
"$OUT/check_ctrace" --expect step=32 --expect tick=32 --expect-dropped 0 \
  "$OUT/traces/ticker_explicit.ctrace"
test ! -e "$OUT/traces/pipeline_3.ctrace" # the disabled launch wrote nothing
echo "run_demo: all checks passed"
