#!/usr/bin/env bash
# Run here (where trace-rewrite builds): generates what test/device/h200_whole_runs.sh compiles on
# the GPU machine into .carry/ (ignored by git): the traced and stripped big_buffer.cu (max events
# 256), examples/loop prepared as examples/loop/run_on_h200.sh does (with nlohmann's headers), and
# bench/drain/compress_records linked statically with Debian's libzstd (the GPU machine has no
# network, so no libzstd-dev). Needs libzstd-dev here.
# trace-view is linked statically from a cmake build here (the GPU machine has no SQLite).
#   test/device/prepare_whole_runs.sh [<trace-rewrite> [<cmake build dir with trace-view built>]]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
build=${2:-build}
mkdir -p .carry/gen/big_buffer .carry/bin
"$tool" --traced test/device/big_buffer.cu --max-events 256 \
  -o .carry/gen/big_buffer/big_buffer.traced.cu -- -std=c++17 -Iruntime/include
"$tool" test/device/big_buffer.cu -o .carry/gen/big_buffer/big_buffer.plain.cu
bash examples/loop/run_on_h200.sh prepare "$tool"
g++ -std=c++17 -O2 -static -DCUTRACE_WITH_ZSTD -Iruntime/include bench/drain/compress_records.cpp \
  runtime/src/format/*.cpp -l:libzstd.a -o .carry/bin/compress_records
g++ -static "$build"/trace-view/CMakeFiles/trace-view.dir/*.o "$build"/runtime/libcutrace_sqlite.a \
  "$build"/runtime/libcutrace_analysis.a "$build"/runtime/libcutrace_format.a -l:libsqlite3.a \
  -lpthread -ldl -lm -o .carry/bin/trace-view
strip .carry/bin/trace-view .carry/bin/compress_records
find .carry/gen/big_buffer .carry/bin -type f | sort
