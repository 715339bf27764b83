#!/usr/bin/env bash
# On a GPU machine (sm_90a), from the repository root, after bench/cutlass/sweep.py here, with
# .carry/sweep.tgz carried: the sweep's configurations built and run.
#   1. unpacks CUTLASS where the rewrite read it (build-cutlass/sweep/: each placement's tree is
#      CUTLASS with that placement's annotated headers over it, as annotate.py wrote it);
#   2. builds each configuration of bench/cutlass/sweep_gemm.cu plain (CUTLASS as published) and
#      traced for each placement (the traced source and header copies of sweep.py), in parallel;
#   3. runs each: its own check against a host reference must print Passed; traced ones record
#      every launch into one run file, and sweep_rows.cpp says what each role's rows hold
#      (producer rows must hold load_tile ranges, consumer rows consume ranges).
# Writes $OUT/sweep/results.md (the table) and logs.tgz.
#   bash bench/cutlass/gpu_sweep.sh [CONFIG...]     (default: every configuration prepared;
#   SWEEP_TUTORIAL=0 leaves the CuTe tutorial out)
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
C=$PWD/.carry/sweep
W=$PWD/build-cutlass/sweep
R=$PWD/build-sweep-gpu
O=${OUT:-$R/out}/sweep
[[ -f $C/configs.txt || ! -f $C.tgz ]] || tar -xzf "$C.tgz"
placements=$(cat "$C/placements.txt" 2>/dev/null)
source bench/cutlass/sweep_setup.sh
NVFLAGS=(-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -DNDEBUG)
want=("$@")
jobs_file=$R/jobs.txt
: >"$jobs_file"
while read -r cfg defs; do
  [[ ${#want[@]} -eq 0 || " ${want[*]} " == *" $cfg "* ]] || continue
  echo "nvcc ${NVFLAGS[*]} -I$R/plain/include -I$R/plain/tools/util/include $defs bench/cutlass/sweep_gemm.cu -o $R/bin/$cfg.plain >$R/logs/build_$cfg.plain.txt 2>&1" >>"$jobs_file"
  for p in $placements; do
    T=$C/traced/$cfg.$p
    [[ -f $T/sweep_gemm.traced.cu ]] || continue
    echo "nvcc ${NVFLAGS[*]} -DCUTRACE_TRACED -I$W/ann_$p/include -I$W/util/include -Iruntime/include -I$T $defs $T/sweep_gemm.traced.cu ${LIBS[*]} -o $R/bin/$cfg.$p >$R/logs/build_$cfg.$p.txt 2>&1" >>"$jobs_file"
  done
done <"$C/configs.txt"
T=$C/tutorial
if [[ ${SWEEP_TUTORIAL:-1} == 1 && -f $T/wgmma_tma_sm90.traced.cu ]]; then
  echo "nvcc ${NVFLAGS[*]} -I$R/plain/include -I$R/plain/tools/util/include $T/plain/wgmma_tma_sm90.cu -o $R/bin/tutorial.plain >$R/logs/build_tutorial.plain.txt 2>&1" >>"$jobs_file"
  echo "nvcc ${NVFLAGS[*]} -DCUTRACE_TRACED -I$W/ann_roles/include -I$W/util/include -Iruntime/include -I$T $T/wgmma_tma_sm90.traced.cu ${LIBS[*]} -o $R/bin/tutorial.traced >$R/logs/build_tutorial.traced.txt 2>&1" >>"$jobs_file"
fi
echo "building $(wc -l <"$jobs_file") programs on $(nproc) cores"
xargs -P "$(nproc)" -I{} bash -c '{}' <"$jobs_file"
echo "built in $(($(date +%s) - started)) s"
log() { echo "$*" | tee -a "$O/results.md"; }
log "| configuration | build | exit | check | rows (role: slices and instants summed over launches) |"
log "|---|---|---|---|---|"
while read -r cfg defs; do
  [[ ${#want[@]} -eq 0 || " ${want[*]} " == *" $cfg "* ]] || continue
  for v in plain $placements; do
    bin=$R/bin/$cfg.$v
    if [[ ! -x $bin ]]; then
      [[ -f $R/logs/build_$cfg.$v.txt ]] &&
        log "| $cfg | $v | BUILD FAILED: $(grep -m1 -E 'error' "$R/logs/build_$cfg.$v.txt" | cut -c1-160) | | |"
      continue
    fi
    out=$R/logs/run_$cfg.$v.txt
    CUTRACE_OUTPUT=$R/runs/$cfg.$v CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace timeout 60 "$bin" \
      >"$out" 2>&1
    rc=$?
    check=$(grep -m1 -E '^(Passed|Failed)' "$out" | cut -c1-80)
    rows=""
    if [[ $v != plain ]]; then
      f=$(ls "$R/runs/$cfg.$v"/*.ctrace 2>/dev/null | head -1)
      if [[ -n $f ]]; then
        "$R/bin/sweep_rows" "$f" device_kernel producer=load_tile consumer=consume \
          >"$R/logs/rows_$cfg.$v.txt" 2>&1
        rows=$(tail -n +2 "$R/logs/rows_$cfg.$v.txt" | sed 's/^ *//' | paste -sd ';' -)
      else
        rows="no run file"
      fi
    fi
    log "| $cfg | $v | $rc | $check | $rows |"
  done
done <"$C/configs.txt"
if [[ ${SWEEP_TUTORIAL:-1} == 1 && -f $T/wgmma_tma_sm90.traced.cu ]]; then
  log ""
  log "CuTe tutorial (examples/cute/tutorial/hopper/wgmma_tma_sm90.cu, its default problem):"
  for v in plain traced; do
    bin=$R/bin/tutorial.$v
    [[ -x $bin ]] || { log "- $v: BUILD FAILED: $(grep -m1 error "$R/logs/build_tutorial.$v.txt" | cut -c1-200)"; continue; }
    CUTRACE_OUTPUT=$R/runs/tutorial timeout 120 "$bin" >"$R/logs/run_tutorial.$v.txt" 2>&1
    rc=$?
    log "- $v: exit $rc; $(grep -E 'CUTE_GEMM|ERROR|error' "$R/logs/run_tutorial.$v.txt" | head -2 | paste -sd ' ' -)"
    grep -E '^cutrace: recorded' "$R/logs/run_tutorial.$v.txt" | sed 's/^/  /' | tee -a "$O/results.md" >/dev/null
  done
  f=$(ls "$R"/runs/tutorial/*.ctrace 2>/dev/null | head -1)
  [[ -n $f ]] && "$R/bin/sweep_rows" "$f" gemm_device cta=k_tile cta=wait_full cta=tma_issue \
    cta=wgmma_issued 2>&1 | sed 's/^/  /' | tee -a "$O/results.md" >/dev/null
fi
tar -czf "$O/logs.tgz" -C "$R" logs
log ""
log "device time of this script: $(($(date +%s) - started)) s"
