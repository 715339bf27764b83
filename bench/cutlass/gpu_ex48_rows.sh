#!/usr/bin/env bash
# On a GPU machine (sm_90a), from the repository root, after bench/cutlass/prepare.sh here, with
# .carry/cutlass and build-cutlass carried: CUTLASS example 48 (a persistent cooperative TF32
# GEMM, 128x128x32 tiles, clusters of 4x2) traced as written (bench/cutlass/annotate.py: a range
# per k-tile in the producer's load() and in the consumers' mma()), at S^3 (default 8192):
#   1. builds the example plain (CUTLASS as published) and traced, and the runtime (g++);
#   2. runs the plain build, then the traced one three times, each with the example's own
#      verification (`Disposition: Passed`):
#        default   the default settings (docs/guide.md, "Row capacity");
#        pool16    CUTRACE_POOL_MB=16: the pool holds fewer rows than every CTA needs, so the
#                  launches after the first drained keep 1 CTA in k whole;
#        first     the same with CUTRACE_ROW_RULE=first: every CTA, each row its first records;
#        large     with EX48_LARGE=L (e.g. 16384): the default settings at L^3, where the
#                  kernel's first launch needs more than its share of CUTRACE_LAUNCH_MB;
#   3. sweep_rows --launches on each run file: per launch its rows, their capacity, the fullest
#      row, what was dropped and the CTAs recorded; trace-view --summary's completeness lines.
# Writes $OUT/ex48/results.md and logs.tgz.
#   OUT=/tmp/out bash bench/cutlass/gpu_ex48_rows.sh       (EX48_MNK: default 8192;
#                                                           EX48_ITERATIONS: default 10;
#                                                           EX48_LARGE: default none;
#                                                           EX48_SMALL=0: the large runs only)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
S=${EX48_MNK:-8192}
C=$PWD/.carry/cutlass
B=$PWD/build-cutlass
R=$PWD/build-ex48-gpu
O=${OUT:-$R/out}/ex48
ex=48_hopper_warp_specialized_gemm
[[ -d $C/traced/$ex ]] || { echo "no $C/traced/$ex: run bench/cutlass/prepare.sh here first"; exit 2; }
rm -rf "$R" && mkdir -p "$R/logs" "$R/src" "$R/runs" "$R/bin" "$O"
log() { echo "$*" | tee -a "$O/results.md"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$R/logs/gpu.txt" 2>&1
log "# CUTLASS example 48 at ${S}^3 on $(head -1 "$R/logs/gpu.txt")"
tar -xzf "$C/cutlass.tgz" -C "$R/src"

# ---- build
bash test/device/build_runtime_gpp.sh "$R/rt" "$R/logs/runtime.txt" -I"$C/json" || exit 1
g++ -std=c++17 -O2 -Iruntime/include -I"$C/json" bench/cutlass/sweep_rows.cpp "$R/rt/libcutrace_analysis.a" \
  "$R/rt/libcutrace_format.a" -lpthread -o "$R/bin/sweep_rows" || exit 1
NVFLAGS=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -DNDEBUG -lcuda)
T=$C/traced/$ex
(time nvcc "${NVFLAGS[@]}" -I"$R/src/include" -I"$R/src/tools/util/include" -I"$R/src/examples/common" \
  "$R/src/examples/$ex/$ex.cu" -o "$R/plain") >"$R/logs/build_plain.txt" 2>&1 &
(time nvcc "${NVFLAGS[@]}" -I"$B/annotated/include" -I"$B/src/tools/util/include" -I"$B/src/examples/common" \
  -I"$B/src/examples/$ex" -DCUTRACE_TRACED -DCUTRACE_BENCH_TILE_SAMPLE=1 -Iruntime/include -I"$T" \
  "$T/$ex.traced.cu" "$R/rt/libcutrace.a" "$R/rt/libcutrace_analysis.a" "$R/rt/libcutrace_format.a" \
  -lpthread -lcuda -o "$R/traced") >"$R/logs/build_traced.txt" 2>&1 &
wait
for v in plain traced; do
  grep -o 'C7515.*serialized due to [a-z ]*' "$R/logs/build_$v.txt" | sed "s/^/$v: /" | tee -a "$O/results.md"
  [[ -x $R/$v ]] && log "built $v in $(grep real "$R/logs/build_$v.txt" | cut -f2)" ||
    { log "BUILD FAILED: $v"; grep -m20 error "$R/logs/build_$v.txt" | tee -a "$O/results.md"; }
done

# ---- runs
args=(--m="$S" --n="$S" --k="$S" --iterations="${EX48_ITERATIONS:-10}")
run() { # NAME BINARY [VAR=VALUE...]: one run with the example's verification
  local name=$1 bin=$2
  shift 2
  [[ -x $bin ]] || return
  mkdir -p "$R/runs/$name"
  local t0=$(date +%s.%N)
  env "$@" CUTRACE_OUTPUT="$R/runs/$name" CUTRACE_FORMAT=ctrace timeout 300 "$bin" "${args[@]}" \
    >"$R/logs/run_$name.txt" 2>&1
  local rc=$? t1=$(date +%s.%N)
  log ""
  log "## $name ($*): exit $rc, $(grep -c 'Disposition: Passed' "$R/logs/run_$name.txt") passed, $(python3 -c "print(f'{$t1-$t0:.1f}')") s"
  log '```'
  grep -E "Disposition|GFLOPS|^cutrace" "$R/logs/run_$name.txt" | tee -a "$O/results.md" >/dev/null
  for f in "$R/runs/$name"/*.ctrace; do
    [[ -f $f ]] || continue
    log "$(du -m "$f" | cut -f1) MB run file"
    "$R/bin/sweep_rows" "$f" device_kernel --launches producer=load_tile consumer=consume 2>&1 |
      tee -a "$O/results.md" >/dev/null
    [[ -x .carry/bin/trace-view ]] &&
      .carry/bin/trace-view "$f" --summary 2>&1 | grep -iE "complete|not recorded|dropped|aligned" | head -12 |
      tee -a "$O/results.md" >/dev/null
  done
  log '```'
}
if [[ ${EX48_SMALL:-1} != 0 ]]; then
  run plain "$R/plain"
  run default "$R/traced"
  run pool16 "$R/traced" CUTRACE_POOL_MB=16
  run first "$R/traced" CUTRACE_POOL_MB=16 CUTRACE_ROW_RULE=first
fi
if [[ -n ${EX48_LARGE:-} ]]; then
  args=(--m="$EX48_LARGE" --n="$EX48_LARGE" --k="$EX48_LARGE" --iterations="${EX48_ITERATIONS:-10}")
  log ""
  log "# At ${EX48_LARGE}^3"
  run "large_plain" "$R/plain"
  run "large_default" "$R/traced"
fi
tar -czf "$O/logs.tgz" -C "$R" logs
log ""
log "device time of this script: $(($(date +%s) - started)) s"
