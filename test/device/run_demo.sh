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
CUTRACE_PER_LAUNCH=1 CUTRACE_RAW=1 CUTRACE_FORMAT=ctrace CUTRACE_OUTPUT="$OUT/traces" "$OUT/trace_demo"
ls -l "$OUT/traces"

# pipeline: 8 CTAs x 6 tiles, CTAs 3 and 7 return inside tile 2 (3 tiles, no epi);
# CTA 0's block row attempts 2 + 300 events into 256 slots: 254 spins kept, 46 dropped.
# Flows load->epi: one per CTA that reached epi.
for f in pipeline pipeline_1 pipeline_2; do
  "$OUT/check_ctrace" --expect load=8 --expect tile=42 --expect iter=42 --expect epi=6 \
    --expect spin=254 --expect-dropped 46 --expect-flows 6 "$OUT/traces/$f.ctrace"
done
# ticker: 8 CTAs x 4 steps, one tick per step; nothing dropped.
"$OUT/check_ctrace" --expect step=32 --expect tick=32 --expect-dropped 0 \
  "$OUT/traces/ticker_explicit.ctrace"
test ! -e "$OUT/traces/pipeline_3.ctrace" # the disabled launch wrote nothing
echo "run_demo: all checks passed"
