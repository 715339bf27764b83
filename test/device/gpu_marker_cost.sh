#!/usr/bin/env bash
# On a GPU machine, from the repository root, after test/device/prepare_marker_cost.sh here:
# builds bench/gpu/marker_cost.cu's traced source with nvcc and prints what each marker shape
# records, as recorded and with the marker cost taken out, against the code's own length
# (docs/FORMAT.md, "Marker cost"). Results in $OUT/marker/marker_cost.csv, and the whole run's
# file (its DEV section holds the probe) as $OUT/marker/marker_cost_run.ctrace.
#   bash test/device/gpu_marker_cost.sh [arch]      arch default sm_90
set -uo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90}
out=${OUT:-$PWD/build-marker-out}/marker
export PATH=/usr/local/cuda/bin:$PATH
C=.carry/marker
[[ -f $C/marker_cost.traced.cu ]] || { echo "no $C: run test/device/prepare_marker_cost.sh"; exit 2; }
R=$PWD/build-marker
rm -rf "$R" "$out" && mkdir -p "$R" "$out"
bash test/device/build_runtime_gpp.sh "$R/runtime" "$out/runtime_build.log" -I$C/include || exit 1
nvcc -std=c++17 -O2 -arch="$arch" -Iruntime/include -DCUTRACE_TRACED -I$C/include \
  $C/marker_cost.traced.cu -o "$R/marker_cost" "$R/runtime/libcutrace.a" \
  "$R/runtime/libcutrace_analysis.a" "$R/runtime/libcutrace_format.a" -lpthread \
  >"$out/build.log" 2>&1 || { echo "build failed"; tail -20 "$out/build.log"; exit 1; }
CUTRACE_OUTPUT="$R/traces" "$R/marker_cost" | tee "$out/marker_cost.csv"
run=$(ls "$R"/traces/*.ctrace 2>/dev/null | head -1)
[[ -n $run ]] && cp "$run" "$out/marker_cost_run.ctrace" || echo "no run file under $R/traces"
