#!/usr/bin/env bash
# Decoder/exporter throughput on a synthetic trace of N records (default 10 M), on this machine.
# usage: bench/decode/run.sh [N] [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000000}
reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src="runtime/src/format/*.cpp runtime/src/analysis/*.cpp" # cutrace_analysis and what it links
g++ -std=c++17 -O2 -Iruntime/include test/browser/gen_trace.cpp $src -o "$work/gen_trace"
g++ -std=c++17 -O2 -Iruntime/include bench/decode/decode_bench.cpp $src -o "$work/decode_bench"
"$work/gen_trace" bulk "$work/big.ctrace" --events "$n" --ctas 264 --groups 2 >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$work/decode_bench" "$work/big.ctrace" "$reps"
