#!/usr/bin/env bash
# CUTLASS 3 Hopper examples traced as written (docs/guide.md, "Tracing CUTLASS"), on a GPU
# machine, from the repository root after bench/cutlass/prepare.sh here, with .carry/cutlass,
# .carry/bin and build-cutlass carried (the traced header copies include CUTLASS's other headers by
# relative paths into build-cutlass/):
#   1. builds the runtime (g++) and, with nvcc for sm_90a, each example twice: plain (CUTLASS as
#      published: what stripping the annotated headers gives, byte for byte) and traced (the
#      traced source and header copies of prepare.sh, no host edits);
#   2. runs each, plain and traced, at a small problem (the fixture) and at the examples' default
#      size, with the examples' own verification (every line must say Passed), the traced ones
#      with CUTRACE_LAUNCHES=all into one run file per program;
#   3. trace-view --summary of every run file, and (CUTLASS_NCU=1, the default) `ncu` kernel time of the
#      cooperative FP8 GEMM (example 54) at 4096^3: plain, traced with CUTRACE=0, traced, and
#      sampled: the traced source built with CUTRACE_BENCH_TILE_SAMPLE=8, so that the TRACE_SAMPLE
#      of bench/cutlass/annotate.py records the load and mma of one tile in 8 (the traced build
#      defines it 1: every tile).
# Writes $OUT/cutlass/: results.md, the small run files (fixtures), logs.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
C=$PWD/.carry/cutlass
R=$PWD/build-cutlass-h200
O=${OUT:-$R/out}/cutlass
rm -rf "$R" && mkdir -p "$R/logs" "$R/src" "$R/runs" "$O"
log() { echo "$*" | tee -a "$O/results.md"; }
past() { (($(date +%s) - started > ${CUTLASS_BUDGET_S:-480})); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$R/logs/gpu.txt" 2>&1
tar -xzf "$C/cutlass.tgz" -C "$R/src"

# ---- build
bash test/device/build_runtime_gpp.sh "$R/rt" "$R/logs/build_runtime.txt" -I"$C/json" || exit 1
NVFLAGS=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -DNDEBUG -lcuda)
PLAIN_INC=(-I"$R/src/include" -I"$R/src/tools/util/include" -I"$R/src/examples/common")
# The traced build sees CUTLASS where the rewrite did (prepare.sh): the same files, by the same paths.
B=$PWD/build-cutlass
TRACED_INC=(-I"$B/annotated/include" -I"$B/src/tools/util/include" -I"$B/src/examples/common")
LIBS=("$R/rt/libcutrace.a" "$R/rt/libcutrace_analysis.a" "$R/rt/libcutrace_format.a" -lpthread -lcuda)
declare -A SRC=([49_collective_builder]=49_hopper_gemm_with_collective_builder
                [54_hopper_fp8_warp_specialized_gemm]=54_hopper_fp8_warp_specialized_gemm)
for ex in "${!SRC[@]}"; do
  (time nvcc "${NVFLAGS[@]}" "${PLAIN_INC[@]}" "$R/src/examples/${SRC[$ex]}/$ex.cu" -o "$R/${ex}_plain") \
    >"$R/logs/build_${ex}_plain.txt" 2>&1 &
  # sampled: one tile in 8; ctas: one CTA in 8, from the --sample=ctas rewrite (traced_ctas/,
  # when prepare.sh made one)
  for v in traced sampled ctas; do
    T=$C/traced/$ex
    [[ $v == ctas ]] && T=$C/traced_ctas/$ex
    [[ $v != traced && $ex != 54_* || ! -d $T ]] && continue
    (time nvcc "${NVFLAGS[@]}" "${TRACED_INC[@]}" -I"$B/src/examples/${SRC[$ex]}" -DCUTRACE_TRACED \
      -DCUTRACE_BENCH_TILE_SAMPLE=$([[ $v == traced ]] && echo 1 || echo 8) \
      -Iruntime/include -I"$T" "$T/$ex.traced.cu" "${LIBS[@]}" -o "$R/${ex}_$v") \
      >"$R/logs/build_${ex}_$v.txt" 2>&1 &
  done
done
wait
for ex in "${!SRC[@]}"; do
  for v in plain traced $([[ $ex == 54_* ]] && echo sampled ctas); do
    [[ -f $R/logs/build_${ex}_$v.txt ]] || continue
    # ptxas's own word when it serializes a function's wgmma (C7515): a cost the tracer caused
    grep -o 'C7515.*serialized due to [a-z ]*' "$R/logs/build_${ex}_$v.txt" | sed "s/^/${ex}_$v: /" |
      tee -a "$O/results.md"
    [[ -x $R/${ex}_$v ]] && log "built ${ex}_$v in $(grep real "$R/logs/build_${ex}_$v.txt")" ||
      { log "BUILD FAILED: ${ex}_$v"; grep -m20 -E "error" "$R/logs/build_${ex}_$v.txt" | tee -a "$O/results.md"; }
  done
done

# ---- runs with the examples' own verification
run() { # NAME VARIANT ARGS...: runs one program, logs, says Passed/Failed lines
  runs=$((runs + 1))
  local name=$1 v=$2 bin=$R/$1_$2 out=$R/logs/run_${runs}_$1_$2.txt
  shift 2
  [[ -x $bin ]] || return
  local t0=$(date +%s.%N)
  timeout 120 "$bin" "$@" >"$out" 2>&1
  local rc=$?
  local t1=$(date +%s.%N)
  log "| $name | $v | $* | rc $rc | $(grep -c 'Passed' "$out") passed, $(grep -c 'Failed' "$out") failed | $(python3 -c "print(f'{$t1-$t0:.1f}')") s |"
  grep -E "^cutrace" "$out" | sed 's/^/    /' | tee -a "$O/results.md" >/dev/null
}
runs=0
log ""
log "| program | build | arguments | exit | verification | wall |"
log "|---|---|---|---|---|---|"
SMALL49=(--m=256 --n=256 --k=512 --l=1)
SMALL54=(--m=256 --n=256 --k=512 --iterations=2)
for v in plain traced sampled ctas; do
  mkdir -p "$R/runs/$v"
  export CUTRACE_OUTPUT=$R/runs/$v/small CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace
  run 49_collective_builder "$v" "${SMALL49[@]}"
  run 54_hopper_fp8_warp_specialized_gemm "$v" "${SMALL54[@]}"
  export CUTRACE_OUTPUT=$R/runs/$v/default
  past || run 49_collective_builder "$v"
  past || run 54_hopper_fp8_warp_specialized_gemm "$v" --iterations=10
done
unset CUTRACE_OUTPUT CUTRACE_LAUNCHES CUTRACE_FORMAT
TV=.carry/bin/trace-view
mkdir -p "$O/fixtures"
for f in "$R"/runs/{traced,sampled,ctas}/small/*.ctrace; do
  [[ -f $f ]] || continue
  b=$(basename "$f" | sed 's/\.[0-9]*\.ctrace$/.ctrace/')
  cp "$f" "$O/fixtures/$b"
  log ""
  log "## $b ($(du -k "$f" | cut -f1) KiB)"
  log '```'
  "$TV" "$f" --summary 2>&1 | head -60 | tee -a "$O/results.md" >/dev/null
  log '```'
done
for f in "$R"/runs/{traced,sampled,ctas}/default/*.ctrace; do
  [[ -f $f ]] || continue
  log ""
  log "## default size: $(basename "$f") ($(du -k "$f" | cut -f1) KiB)"
  log '```'
  "$TV" "$f" --summary 2>&1 | head -40 | tee -a "$O/results.md" >/dev/null
  log '```'
done

# ---- kernel time: plain, traced with CUTRACE=0, traced (ncu)
if [[ ${CUTLASS_NCU:-1} == 1 ]] && ! past && [[ -x $R/54_hopper_fp8_warp_specialized_gemm_traced ]]; then
  big=(--m=4096 --n=4096 --k=4096 --iterations=10)
  for v in plain off on sampled ctas; do
    bin=$R/54_hopper_fp8_warp_specialized_gemm_$(case $v in plain | sampled | ctas) echo $v ;; *) echo traced ;; esac)
    [[ -x $bin ]] || continue
    env $([[ $v == off ]] && echo CUTRACE=0) CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace \
      CUTRACE_OUTPUT=$R/runs/ncu_$v timeout 200 ncu --clock-control none \
      --metrics gpu__time_duration.sum -k regex:device_kernel --csv "$bin" "${big[@]}" \
      >"$R/logs/ncu_54_$v.csv" 2>"$R/logs/ncu_54_$v.err"
  done
  python3 - "$R"/logs/ncu_54_{plain,off,on,sampled,ctas}.csv >>"$O/results.md" 2>&1 <<'PY' || log "(ncu table failed: see logs)"
import csv, os, statistics, sys
print("\n| example 54, 4096^3, 10 timed launches + warm-up | median kernel time (us) | vs plain |\n|---|---|---|")
base = None
for path, label in zip(sys.argv[1:], ["plain", "traced, CUTRACE=0", "traced, recording",
                                      "traced, recording one tile in 8 (TRACE_SAMPLE)",
                                      "traced, recording one CTA in 8 (TRACE_SAMPLE)"]):
    if not os.path.exists(path):
        continue
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    v = rows[0].index("Metric Value")
    times = [float(r[v].replace(",", "")) / 1000 for r in rows[1:]]
    m = statistics.median(times)
    base = base or m
    print(f"| {label} ({len(times)} launches) | {m:.1f} | {m / base - 1:+.1%} |")
PY
fi
tar -czf "$O/logs.tgz" -C "$R" logs
log ""
log "device time of this script: $(($(date +%s) - started)) s"
