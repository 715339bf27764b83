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
#      cooperative FP8 GEMM (example 54) at 4096^3: plain, traced with CUTRACE=0, traced.
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
  (time nvcc "${NVFLAGS[@]}" "${TRACED_INC[@]}" -I"$B/src/examples/${SRC[$ex]}" -DCUTRACE_TRACED \
    -Iruntime/include -I"$C/traced/$ex" \
    "$C/traced/$ex/$ex.traced.cu" "${LIBS[@]}" -o "$R/${ex}_traced") \
    >"$R/logs/build_${ex}_traced.txt" 2>&1 &
done
wait
for ex in "${!SRC[@]}"; do
  for v in plain traced; do
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
for v in plain traced; do
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
for f in "$R"/runs/traced/small/*.ctrace; do
  [[ -f $f ]] || continue
  b=$(basename "$f" | sed 's/\.[0-9]*\.ctrace$/.ctrace/')
  cp "$f" "$O/fixtures/$b"
  log ""
  log "## $b ($(du -k "$f" | cut -f1) KiB)"
  log '```'
  "$TV" "$f" --summary 2>&1 | head -60 | tee -a "$O/results.md" >/dev/null
  log '```'
done
for f in "$R"/runs/traced/default/*.ctrace; do
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
  for v in plain off on; do
    bin=$R/54_hopper_fp8_warp_specialized_gemm_$([[ $v == plain ]] && echo plain || echo traced)
    env $([[ $v == off ]] && echo CUTRACE=0) CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace \
      CUTRACE_OUTPUT=$R/runs/ncu_$v timeout 200 ncu --clock-control none \
      --metrics gpu__time_duration.sum -k regex:device_kernel --csv "$bin" "${big[@]}" \
      >"$R/logs/ncu_54_$v.csv" 2>"$R/logs/ncu_54_$v.err"
  done
  python3 - "$R"/logs/ncu_54_{plain,off,on}.csv >>"$O/results.md" 2>&1 <<'PY' || log "(ncu table failed: see logs)"
import csv, statistics, sys
print("\n| example 54, 4096^3, 10 timed launches + warm-up | median kernel time (us) | vs plain |\n|---|---|---|")
base = None
for path, label in zip(sys.argv[1:], ["plain", "traced, CUTRACE=0", "traced, recording"]):
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
