#!/usr/bin/env bash
# Run here (where trace-rewrite builds): writes the traced source that
# test/device/gpu_value_forms.sh compiles into .carry/values/ (ignored by git; replaced), with
# nlohmann's headers for the runtime. Then on the GPU machine:
#   command: bash test/device/gpu_value_forms.sh      carry: [".carry"]
#   bash test/device/prepare_value_forms.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
rm -rf .carry/values && mkdir -p .carry/values/include
cp -r /usr/include/nlohmann .carry/values/include/
"$tool" --traced test/device/value_forms.cu -o .carry/values/value_forms.traced.cu
ls .carry/values
