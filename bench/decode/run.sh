#!/usr/bin/env bash
# Decoder/exporter throughput on a synthetic trace of N records (default 10 M), on this machine.
# usage: bench/decode/run.sh [N] [REPS] [BUILD]
# With BUILD (a CMake build folder of this project), the two programs link that build's
# libcutrace_analysis.a and libcutrace_format.a (what the ctest smoke run does: no runtime
# source is compiled again); without it, they are compiled from the runtime's sources.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000000}
reps=${2:-3}
build=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n "$build" ]]; then
  src="$build/runtime/libcutrace_analysis.a $build/runtime/libcutrace_format.a"
else
  # cutrace_analysis (with the viewer page it embeds: docs/design.md) and what it links
  cmake -DOUT="$work/viewer_page.cpp" -P runtime/viewer/embed.cmake
  src="runtime/src/format/*.cpp runtime/src/analysis/*.cpp $work/viewer_page.cpp"
fi
g++ -std=c++17 -O2 -Iruntime/include test/browser/gen_trace.cpp $src -o "$work/gen_trace"
g++ -std=c++17 -O2 -Iruntime/include bench/decode/decode_bench.cpp $src -o "$work/decode_bench"
"$work/gen_trace" bulk "$work/big.ctrace" --events "$n" --ctas 264 --groups 2 >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$work/decode_bench" "$work/big.ctrace" "$reps"
