#!/usr/bin/env bash
# On a GPU machine (H100/H200, sm_90a): groups declared together record each thread's events in
# the row it writes (docs/annotations.md, "TRACE_GROUP"). Builds the sources
# test/device/prepare_groups_together.sh wrote into .carry/groups_together with the runtime, runs
# them with recording on, and checks every row's events (check_group_rows.cpp):
#   device_kernel (CUTLASS 3's shape, body under __CUDA_ARCH_FEAT_SM90_ALL, 2 CTAs x 384 threads):
#     the producer row holds the 8 `load` ranges of thread 0, each consumer warpgroup's row the 8
#     `mma` ranges of its first thread, and nothing else;
#   warp_specialized (1 CTA x 384 threads): producer, consumer[wg1] and consumer[wg2] each hold 4
#     `step` ranges and 4 `stage` records; the nested group's row `epilogue` holds its `store`.
# usage: bash test/device/gpu_groups_together.sh [arch] [output dir]   (default sm_90a, $OUT)
# Exit 1 when a build, the run or a check failed; logs and recordings under OUT/groups_together.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90a}
out=${2:-${OUT:-$PWD/build-groups-together-out}}/groups_together
export PATH=/usr/local/cuda/bin:$PATH
G=.carry/groups_together
[[ -f $G/main.cu ]] || { echo "no $G: run test/device/prepare_groups_together.sh here first"; exit 2; }
R=$PWD/build-groups-together
rm -rf "$R" "$out" && mkdir -p "$R/obj" "$out/traces"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake
NVCC=(nvcc -std=c++17 -O3 -Iruntime/include -I$G/include)
for f in runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" \
  runtime/src/capture/*.cpp runtime/src/capture/outputs/all_formats.cpp; do
  case $f in *sqlite*) continue ;; esac
  "${NVCC[@]}" -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o" &
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n; done
done
wait
"${NVCC[@]}" -arch="$arch" -I$G -Itest/inputs/traced $G/arch_guarded.traced.cu \
  $G/together.traced.cu $G/main.cu "$R"/obj/*.o -o "$R/groups_together" 2>&1 | tee "$out/build.txt"
g++ -std=c++17 -O2 -Iruntime/include -I$G/include -I/usr/local/cuda/include \
  test/device/check_group_rows.cpp -c -o "$R/check.o"
nvcc "$R/check.o" "$R"/obj/*.o -o "$R/check_group_rows"
CUTRACE_OUTPUT="$out/traces" CUTRACE_PER_LAUNCH=1 CUTRACE_RAW=1 "$R/groups_together" \
  2>&1 | tee "$out/run.txt"
failures=0
# The per-launch files (CUTRACE_PER_LAUNCH=1); the process's run file beside them holds them all.
launches=()
for f in "$out"/traces/*.ctrace; do
  [[ $(basename "$f") == groups_together.* ]] || launches+=("$f")
done
"$R/check_group_rows" device_kernel 'producer:load=8' 'consumer[wg1]:mma=8' \
  'consumer[wg2]:mma=8' -- "${launches[@]}" | tee "$out/check_device_kernel.txt" ||
  failures=$((failures + 1))
"$R/check_group_rows" warp_specialized 'producer:stage=4,step=4' \
  'consumer[wg1]:stage=4,step=4' 'consumer[wg2]:stage=4,step=4' 'epilogue:store=1' -- \
  "${launches[@]}" | tee "$out/check_warp_specialized.txt" || failures=$((failures + 1))
echo "groups together: $((2 - failures)) of 2 kernels PASS"
((failures == 0))
