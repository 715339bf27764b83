#!/usr/bin/env bash
# On a GPU machine (sm_90a), from the repository root, after bench/cutlass/sweep.py here for the
# configuration (placements roles, top and sample) and bench/cutlass/prepare_rows.sh, with
# .carry/sweep.tgz and .carry/rows carried: a persistent cooperative CUTLASS GEMM at S^3
# recorded with the default settings (docs/guide.md, "Row capacity").
#   1. builds bench/cutlass/sweep_gemm.cu plain and traced for each placement, and `top` once
#      more against the recorder headers of .carry/rows/include (the tree before rows were
#      sized at launch: what the sizing costs the kernel);
#   2. records `top` (groups at the top of operator(), one range per k-tile in the consumers'
#      mma()) for 3 launches with the defaults, then with CUTRACE_LAUNCH_MB=1 (the first launch
#      overflows, the later ones are sized from it); sweep_rows says each launch's row capacity,
#      its fullest row and what was dropped;
#   3. ncu kernel durations (--clock-control none, gpu__time_duration.sum) of 6 launches each:
#      plain, every build traced, and `top` with CUTRACE_LAUNCHES=none (recording off);
#   4. when .carry/sweep/tutorial_samples/ is there (bench/cutlass/tutorial_samples.sh), the CuTe
#      Hopper tutorial GEMM at 4096^3 by ncu, 10 launches each: plain, every k-tile recorded,
#      sampled (1 CTA in 8, in 64) before the k-loop, sampled by CTA for the whole kernel, and
#      recording off.
# Writes $OUT/rows.tgz (results.md, the two run files, ncu's CSVs, logs).
#   bash bench/cutlass/gpu_rows.sh            (ROWS_CONFIG, ROWS_MNK: default bf16_coop_256x128_c1, 8192;
#                                              ROWS_ONLY=1: plain, top and top_before only;
#                                              ROWS_SAMPLES: the sampled placements, default
#                                              "sample", "sample sample64" adds 1 CTA in 64;
#                                              ROWS_TUTORIAL=0: no section 4;
#                                              ROWS_ROUNDS=N: section 3 N times)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
CFG=${ROWS_CONFIG:-bf16_coop_256x128_c1}
S=${ROWS_MNK:-8192}
C=$PWD/.carry/sweep
W=$PWD/build-cutlass/sweep
R=$PWD/build-rows-gpu
O=${OUT:-$R/out}/rows
[[ -d .carry/rows/include/cutrace ]] || { echo "no .carry/rows: run bench/cutlass/prepare_rows.sh"; exit 2; }
samples=${ROWS_SAMPLES:-sample}
placements="roles top $samples"
source bench/cutlass/sweep_setup.sh
defs=$(grep "^$CFG " "$C/configs.txt" | cut -d' ' -f2-)
NVFLAGS=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -DNDEBUG $defs)
# The builds the row capacity needs first (jobs.txt), the others (jobs2.txt) alongside: the runs
# of section 2 start once the first are built, so a short device lease still brings them back.
jobs_file=$R/jobs.txt
echo "nvcc ${NVFLAGS[*]} -I$R/plain/include -I$R/plain/tools/util/include bench/cutlass/sweep_gemm.cu -o $R/bin/plain >$R/logs/build_plain.txt 2>&1" >"$jobs_file"
traced() { # NAME PLACEMENT RUNTIME_INCLUDE
  local T=$C/traced/$CFG.$2
  echo "nvcc ${NVFLAGS[*]} -DCUTRACE_TRACED -I$W/ann_$2/include -I$W/util/include -I$3 -I$T $T/sweep_gemm.traced.cu ${LIBS[*]} -o $R/bin/$1 >$R/logs/build_$1.txt 2>&1" >>"$jobs_file"
}
traced top top runtime/include
traced top_before top "$PWD/.carry/rows/include"
first_jobs=$jobs_file
jobs_file=$R/jobs2.txt
: >"$jobs_file"
traced roles roles runtime/include
for p in $samples; do traced "$p" "$p" runtime/include; done
TS=$C/tutorial_samples
[[ ${ROWS_TUTORIAL:-1} == 0 ]] && TS=$R/no-tutorial
tutorial() { # NAME TRACED_SOURCE
  echo "nvcc ${NVFLAGS[*]} -DCUTRACE_TRACED -I$W/ann_roles/include -I$W/util/include -Iruntime/include -I$(dirname "$2") $2 ${LIBS[*]} -o $R/bin/tutorial_$1 >$R/logs/build_tutorial_$1.txt 2>&1" >>"$jobs_file"
}
if [[ -d $TS ]]; then
  echo "nvcc ${NVFLAGS[*]} -I$R/plain/include -I$R/plain/tools/util/include $C/tutorial/plain/wgmma_tma_sm90.cu -o $R/bin/tutorial_plain >$R/logs/build_tutorial_plain.txt 2>&1" >>"$jobs_file"
  tutorial all "$C/tutorial/wgmma_tma_sm90.traced.cu"
  for v in loop8 loop64 cta8 cta64; do tutorial "$v" "$TS/$v/wgmma_tma_sm90.traced.cu"; done
fi
[[ ${ROWS_ONLY:-0} == 1 ]] && : >"$jobs_file" # ROWS_ONLY=1: sections 1-3 for plain, top, top_before only
xargs -P "$(nproc)" -I{} bash -c '{}' <"$jobs_file" &
second_builds=$!
xargs -P "$(nproc)" -I{} bash -c '{}' <"$first_jobs"
echo "first builds done in $(($(date +%s) - started)) s"
log() { echo "$*" | tee -a "$O/results.md"; }
log "# $CFG at ${S}^3 on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
for b in plain top top_before; do
  [[ -x $R/bin/$b ]] || log "BUILD FAILED: $b: $(grep -m1 error "$R/logs/build_$b.txt" | cut -c1-200)"
done
# 2. Row capacity with the defaults, then with a first launch too small.
record() { # NAME ENV...
  local name=$1
  shift
  env SWEEP_MNK=$S SWEEP_LAUNCHES=3 CUTRACE_OUTPUT=$R/runs/$name CUTRACE_LAUNCHES=all \
    CUTRACE_FORMAT=ctrace CUTRACE_COMPRESS=delta "$@" timeout 300 "$R/bin/top" >"$R/logs/run_$name.txt" 2>&1
  log ""
  log "## top, 3 launches, $* (exit $?)"
  log "$(grep -E '^(Passed|Failed)|^cutrace:' "$R/logs/run_$name.txt" | sed 's/^/    /')"
  local f
  f=$(ls "$R/runs/$name"/*.ctrace 2>/dev/null | head -1)
  [[ -n $f ]] || { log "    no run file"; return; }
  cp "$f" "$O/$name.ctrace"
  log "$("$R/bin/sweep_rows" "$f" device_kernel --launches producer=load_tile consumer=consume 2>&1 | sed 's/^/    /')"
}
record default CUTRACE_PER_LAUNCH=0
record first_launch_1mb CUTRACE_LAUNCH_MB=1
tar -czf "${OUT:-$R/out}/rows.tgz" -C "$O" . # so far
# 3. Kernel durations.
log ""
log "## ncu gpu__time_duration.sum, 6 launches each (us: median of launches 2-6, then each)"
measure() { # NAME BINARY ENV...
  local name=$1 bin=$2
  shift 2
  env SWEEP_MNK=$S SWEEP_LAUNCHES=6 CUTRACE_OUTPUT=$R/runs/ncu_$name CUTRACE_LAUNCHES=all \
    CUTRACE_FORMAT=ctrace "$@" timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum \
    --kernel-name-base demangled --kernel-name regex:${KERNEL:-device_kernel} --launch-count ${LAUNCHES:-16} --csv "$R/bin/$bin" $ARGS \
    >"$O/ncu_$name.csv" 2>"$R/logs/ncu_$name.txt"
  python3 bench/cutlass/ncu_median.py "$O/ncu_$name.csv" "$name" | tee -a "$O/results.md"
}
ARGS=""
measure plain plain
measure off top CUTRACE_LAUNCHES=none
measure top top
measure top_before top_before
wait "$second_builds"
log "(all builds done at $(($(date +%s) - started)) s)"
for b in roles $samples; do
  if [[ -x $R/bin/$b ]]; then measure "$b" "$b"
  else log "BUILD FAILED: $b: $(grep -m1 error "$R/logs/build_$b.txt" | cut -c1-200)"; fi
done
# ROWS_ROUNDS=N: N-1 more rounds of every build, one build after another in each round (names
# ending in _rK), so that a difference between builds is seen against the spread between rounds.
for ((round = 2; round <= ${ROWS_ROUNDS:-1}; round++)); do
  log "(round $round at $(($(date +%s) - started)) s)"
  measure "plain_r$round" plain
  measure "off_r$round" top CUTRACE_LAUNCHES=none
  for b in top roles $samples; do
    [[ -x $R/bin/$b ]] && measure "${b}_r$round" "$b"
  done
  tar -czf "${OUT:-$R/out}/rows.tgz" -C "$O" . # so far
done
if [[ -d $TS ]]; then
  log ""
  log "## CuTe tutorial GEMM 4096^3, ncu gpu__time_duration.sum, 10 launches each (us: median of 2-10, then each)"
  export KERNEL=gemm_device ARGS="4096 4096 4096" LAUNCHES=10
  for v in plain all loop8 loop64 cta8 cta64; do
    [[ -x $R/bin/tutorial_$v ]] || { log "- $v: BUILD FAILED: $(grep -m1 error "$R/logs/build_tutorial_$v.txt" | cut -c1-200)"; continue; }
    measure "tutorial_$v" "tutorial_$v"
  done
  [[ -x $R/bin/tutorial_all ]] && measure tutorial_off tutorial_all CUTRACE_LAUNCHES=none
  unset KERNEL ARGS LAUNCHES
  # The SASS of each build's gemm_device kernels: instructions, HGMMA and those waiting on the
  # one before (gsb0), local memory traffic, the warpgroup waits.
  log ""
  log "## tutorial SASS per kernel (cuobjdump -sass): instructions, HGMMA, HGMMA with gsb0, LDL/STL, WARPGROUP.DEPBAR"
  for v in plain all loop8 loop64 cta8 cta64; do
    [[ -x $R/bin/tutorial_$v ]] || continue
    cuobjdump -sass "$R/bin/tutorial_$v" >"$R/logs/sass_tutorial_$v.txt" 2>&1
    awk -v v="$v" '/Function : /{if (f != "") print v, f, n, h, g, l, d; f = $3; n = h = g = l = d = 0; next}
      /^ +\/\*[0-9a-f]+\*\//{n++; if (/HGMMA/) {h++; if (/gsb0/) g++} if (/ LDL| STL/) l++; if (/WARPGROUP.DEPBAR/) d++}
      END{if (f != "") print v, f, n, h, g, l, d}' "$R/logs/sass_tutorial_$v.txt" |
      grep gemm_device | sed -E 's/_Z[0-9]+(gemm_device[a-z_]*)I[^ ]*/\1/' | sed 's/^/    /' | tee -a "$O/results.md"
  done
fi
tar -czf "$O/logs.tgz" -C "$R" logs
log ""
log "device time of this script: $(($(date +%s) - started)) s"
tar -czf "${OUT:-$R/out}/rows.tgz" -C "$O" .
