#!/usr/bin/env bash
# Run here (where trace-rewrite builds): writes bench/gpu/marker_cost.cu's traced source into
# .carry/marker/ (ignored by git; replaced), with nlohmann's headers for the runtime. Then on the
# GPU machine:  command: bash test/device/gpu_marker_cost.sh [arch]     carry: [".carry"]
#   bash test/device/prepare_marker_cost.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
rm -rf .carry/marker && mkdir -p .carry/marker/include
cp -r /usr/include/nlohmann .carry/marker/include/
# 64 repetitions of a range around 8 inner ranges take 1,152 slots: rows of 2,048.
"$tool" --traced --max-events=2048 bench/gpu/marker_cost.cu -o .carry/marker/marker_cost.traced.cu
ls .carry/marker
