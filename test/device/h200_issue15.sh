#!/usr/bin/env bash
# Issue 15 on an H200: records the fixtures of docs/analysis.md (see prepare_issue15.sh, which
# writes the traced sources into .carry/ here):
#   - diff/ws_gemm_run1.ctrace, ws_gemm_run2.ctrace: examples/warp_specialized, one build, two
#     processes (the run-to-run noise of `trace-view diff`);
#   - diff/ws_gemm_repeat_run.ctrace: the same build, 1 + 30 launches of ws_gemm in one process;
#   - diff/ws_gemm_float4.ctrace: test/device/ws_gemm_float4.cu (the producer's loads 16 bytes
#     wide), the changed build of the same kernel;
#   - waves/layernorm_waves.ctrace: examples/layernorm with 1.5 and with 2 waves of 1024-thread CTAs.
#   bash test/device/h200_issue15.sh [arch] [output dir]   arch default sm_90; output default $OUT
# Exit 1 when a build or a run failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90}
out=${2:-${OUT:-$PWD/build-issue15-out}}/issue15
export PATH=/usr/local/cuda/bin:$PATH
G=.carry/gen
[[ -d $G/ws_gemm_float4 ]] || { echo "no $G/ws_gemm_float4: run test/device/prepare_issue15.sh"; exit 2; }
R=$PWD/build-issue15
rm -rf "$R" "$out" && mkdir -p "$R/obj" "$out/logs" "$out/diff" "$out/waves"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
started=$(date +%s)
failures=0
step() { echo "== $* ($(($(date +%s) - started)) s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpu.txt" 2>&1 || true
NVCC=(nvcc -std=c++17 -O3 -arch="$arch" -Iruntime/include -I.carry/include)
bg() {
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  "$@" &
}
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }
logged() { local name=$1; shift; "$@" >"$out/logs/$name.txt" 2>&1; }
# The objects' logs stay in the build folder: $OUT brings back a bounded number of files.
logged_obj() { "$@" >>"$R/obj/build.log" 2>&1; }

step "build: runtime objects"
for f in runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" \
  runtime/src/capture/*.cpp runtime/src/capture/outputs/all_formats.cpp; do
  case $f in *sqlite*) continue ;; esac # the SQLite export is trace-view's, not the runtime's
  bg logged_obj "${NVCC[@]}" -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o"
done
drain
OBJ=("$R"/obj/*.o)
step "build: traced programs (${#OBJ[@]} objects)"
bg logged build_ws_gemm "${NVCC[@]}" $G/warp_specialized/warp_specialized.traced.cu \
  -I$G/warp_specialized -Iexamples/warp_specialized "${OBJ[@]}" -o "$R/ws_gemm"
bg logged build_ws_gemm_float4 "${NVCC[@]}" $G/ws_gemm_float4/ws_gemm_float4.traced.cu \
  -I$G/ws_gemm_float4 -Itest/device "${OBJ[@]}" -o "$R/ws_gemm_float4"
bg logged build_layernorm "${NVCC[@]}" $G/layernorm/layernorm.traced.cu -I$G/layernorm \
  -Iexamples/layernorm "${OBJ[@]}" -o "$R/layernorm"
drain
for b in ws_gemm ws_gemm_float4 layernorm; do
  [[ -x $R/$b ]] || { echo "FAIL: $b not built (logs/build_$b.txt)"; failures=$((failures + 1)); }
done

# record <fixture path> <binary> <args...>: runs the traced program, keeps the single-launch file
# of its first launch (CUTRACE_PER_LAUNCH=1) or, with RUN_FILE=1, the program's run file.
record() {
  local dest=$1 bin=$2
  shift 2
  local dir=$R/rec_$(basename "${dest%.ctrace}") rc=0
  [[ -x $bin ]] || return
  rm -rf "$dir"
  CUTRACE_OUTPUT="$dir" CUTRACE_PER_LAUNCH=1 CUTRACE_RAW=1 CUTRACE_FORMAT=json \
    timeout 120 "$bin" "$@" >"$out/logs/run_$(basename "${dest%.ctrace}").txt" 2>&1 || rc=$?
  ls -la "$dir" >>"$out/logs/run_$(basename "${dest%.ctrace}").txt" 2>&1 || true
  local pick
  if [[ ${RUN_FILE:-0} == 1 ]]; then
    pick=$(ls "$dir"/*.*.ctrace 2>/dev/null | head -1)
  else
    pick=$(ls "$dir"/*.ctrace 2>/dev/null | grep -v '\..*\.ctrace$' | head -1)
    [[ -n $pick ]] || pick=$(ls "$dir"/*.ctrace 2>/dev/null | head -1)
  fi
  if [[ $rc != 0 || -z $pick ]]; then
    echo "FAIL: $dest (exit $rc)"
    failures=$((failures + 1))
    return
  fi
  cp "$pick" "$out/$dest"
  echo "   $dest <- $(basename "$pick") ($(stat -c %s "$pick") bytes): $(grep -E 'PASS|FAIL' \
    "$out/logs/run_$(basename "${dest%.ctrace}").txt" | tail -1)"
}
step "record"
record diff/ws_gemm_run1.ctrace "$R/ws_gemm"
record diff/ws_gemm_run2.ctrace "$R/ws_gemm"
record diff/ws_gemm_float4.ctrace "$R/ws_gemm_float4"
record diff/ws_gemm_float4_run2.ctrace "$R/ws_gemm_float4"
RUN_FILE=1 record diff/ws_gemm_repeat_run.ctrace "$R/ws_gemm" --repeat 30
# 198 CTAs of 1024 threads, 2 data rows per warp: one such CTA fits an SM (64 registers a
# thread), so the 132 SMs run them in 1.5 waves; 264 CTAs make 2 full waves.
record waves/layernorm_waves.ctrace "$R/layernorm" --rows 12672 --ctas 198
record waves/layernorm_full_waves.ctrace "$R/layernorm" --rows 16896 --ctas 264
step "done: $failures failures"
((failures == 0))
