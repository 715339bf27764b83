#!/usr/bin/env bash
# On a GPU machine, from the repository root, with .carry/first_drain carried (made here by
#   bash test/device/gpu_first_drain.sh --prepare
# which rewrites test/device/first_drain.cu traced and copies trace-view and nlohmann's headers):
# builds the runtime with g++ and the traced program with nvcc, runs it with CUTRACE_LAUNCH_MB=1
# (the first launch of each kernel overflows) and with the defaults, and writes per run the
# program's output, `trace-view list` and `--summary`'s completeness lines to
# $OUT/first_drain/results.md. Expected: with CUTRACE_LAUNCH_MB=1 only each kernel's first
# recorded launch is incomplete; the exit line counts the launches that waited.
#   OUT=/tmp/out bash test/device/gpu_first_drain.sh
set -uo pipefail
C=$PWD/.carry/first_drain
if [[ ${1:-} == --prepare ]]; then
  rm -rf "$C" && mkdir -p "$C/json"
  build/bin/trace-rewrite --traced test/device/first_drain.cu -o "$C/first_drain.traced.cu" || exit 1
  cp -r /usr/include/nlohmann "$C/json/" && cp build/bin/trace-view "$C/" && strip "$C/trace-view"
  exit 0
fi
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD/build-first-drain
O=${OUT:-$R/out}/first_drain
[[ -f $C/first_drain.traced.cu ]] || { echo "no $C: run bash test/device/gpu_first_drain.sh --prepare here"; exit 2; }
rm -rf "$R" && mkdir -p "$R/logs" "$O"
log() { echo "$*" | tee -a "$O/results.md"; }
log "# Launches queued behind a kernel's first recorded launch, on $(nvidia-smi --query-gpu=name --format=csv,noheader)"
bash test/device/build_runtime_gpp.sh "$R/rt" "$R/logs/runtime.txt" -I"$C/json" || exit 1
nvcc -std=c++17 -O3 -arch=native -DCUTRACE_TRACED -Iruntime/include -I"$C/json" -I"$C" \
  "$C/first_drain.traced.cu" "$R/rt/libcutrace.a" "$R/rt/libcutrace_analysis.a" \
  "$R/rt/libcutrace_format.a" -lpthread -lcuda -o "$R/first_drain" >"$R/logs/build.txt" 2>&1 ||
  { log "BUILD FAILED"; tail -30 "$R/logs/build.txt" | tee -a "$O/results.md"; exit 1; }
run() { # NAME [VAR=VALUE...]
  local name=$1
  shift
  mkdir -p "$R/runs/$name"
  env "$@" CUTRACE_OUTPUT="$R/runs/$name" CUTRACE_FORMAT=ctrace timeout 120 "$R/first_drain" \
    >"$R/logs/run_$name.txt" 2>&1
  log ""
  log "## $name ($*): exit $?"
  log '```'
  cat "$R/logs/run_$name.txt" >>"$O/results.md"
  for f in "$R/runs/$name"/*.ctrace; do
    "$C/trace-view" list "$f" 2>&1 | tee -a "$O/results.md" >/dev/null
    "$C/trace-view" "$f" --summary 2>&1 | grep -E "INCOMPLETE|complete" | head -6 |
      tee -a "$O/results.md" >/dev/null
  done
  log '```'
}
run launch_mb_1 CUTRACE_LAUNCH_MB=1 CUTRACE_LAUNCHES=all
run defaults
run rule_first CUTRACE_LAUNCH_MB=1 CUTRACE_LAUNCHES=all CUTRACE_ROW_RULE=first
