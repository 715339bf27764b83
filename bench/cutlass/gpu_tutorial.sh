#!/usr/bin/env bash
# On a GPU machine (sm_90a), from the repository root, after bench/cutlass/sweep.py and
# bench/cutlass/tutorial_samples.sh here, with .carry/sweep.tgz carried: CuTe's Hopper tutorial
# GEMM at 4096^3 by ncu (gpu__time_duration.sum, --clock-control none), 10 launches of each build,
# two rounds one build after another: plain, every k-tile recorded (all), and the variants of
# tutorial_samples.sh named in TUTORIAL_VARIANTS (default: loop8 pred8 predk8 loopcl8 predcl8).
# TUTORIAL_ARGS: the tutorial's own arguments (default "4096 4096 4096": M N K, then its NT layout;
# "4096 4096 4096 T N" times the TN layout). Writes $OUT/tutorial.tgz (results.md, ncu's CSVs,
# build logs).
#   bash bench/cutlass/gpu_tutorial.sh
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
R=$PWD/build-tutorial-gpu
O=${OUT:-$R/out}/tutorial
placements="roles"
source bench/cutlass/sweep_setup.sh # sets C (.carry/sweep) and W (build-cutlass/sweep)
variants=${TUTORIAL_VARIANTS:-loop8 pred8 predk8 loopcl8 predcl8}
read -ra args <<<"${TUTORIAL_ARGS:-4096 4096 4096}"
NVFLAGS=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -DNDEBUG)
jobs=$R/jobs.txt
echo "nvcc ${NVFLAGS[*]} -I$R/plain/include -I$R/plain/tools/util/include $C/tutorial/plain/wgmma_tma_sm90.cu -o $R/bin/plain >$R/logs/build_plain.txt 2>&1" >"$jobs"
traced() { # NAME TRACED_SOURCE
  echo "nvcc ${NVFLAGS[*]} -DCUTRACE_TRACED -I$W/ann_roles/include -I$W/util/include -Iruntime/include -I$(dirname "$2") $2 ${LIBS[*]} -o $R/bin/$1 >$R/logs/build_$1.txt 2>&1" >>"$jobs"
}
traced all "$C/tutorial/wgmma_tma_sm90.traced.cu"
for v in $variants; do traced "$v" "$C/tutorial_samples/$v/wgmma_tma_sm90.traced.cu"; done
xargs -P "$(nproc)" -I{} bash -c '{}' <"$jobs"
log() { echo "$*" | tee -a "$O/results.md"; }
log "# CuTe tutorial GEMM (${args[*]}) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) (builds done at $(($(date +%s) - started)) s)"
log ""
log "ncu gpu__time_duration.sum, 10 launches (us: median of launches 2-10, then each)"
for round in 1 2; do
  for b in plain all $variants; do
    [[ -x $R/bin/$b ]] || { log "- $b: BUILD FAILED: $(grep -m1 error "$R/logs/build_$b.txt" | cut -c1-200)"; continue; }
    CUTRACE_OUTPUT=$R/runs/$b CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace timeout 300 \
      ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name-base demangled \
      --kernel-name regex:gemm_device --launch-count 10 --csv "$R/bin/$b" "${args[@]}" \
      >"$O/ncu_${b}_r$round.csv" 2>"$R/logs/ncu_${b}_r$round.txt"
    python3 bench/cutlass/ncu_median.py "$O/ncu_${b}_r$round.csv" "$b (round $round)" |
      tee -a "$O/results.md"
  done
done
log ""
log "device time of this script: $(($(date +%s) - started)) s"
tar -czf "$O/logs.tgz" -C "$R" logs
tar -czf "${OUT:-$R/out}/tutorial.tgz" -C "$O" .
