#!/usr/bin/env bash
# --auto on a GPU machine (docs/auto.md), from the repository root after bench/auto/prepare.sh
# here (build-auto-gpu/ carried). One call, at most BUDGET_S seconds of steps (default 330):
#   1. cost: bench/auto/cost.cu plain and with --auto / --auto=warps, kernel times by ncu
#      (gpu__time_duration of 10 launches after a warm-up) with recording on (every launch
#      recorded) and off (CUTRACE=0: the original kernels run); the checksums of every build;
#   2. programs: three cuda-samples programs and llm.c's dev/cuda kernels, each built plain and
#      with --auto, both run (recording on for --auto) and verified by their own checks (exit
#      status, "All results match"), JOBS runs at a time (default 8);
#   3. one recorded launch of each cost kernel and of two programs kept as .ctrace for
#      trace-view here.
# Writes $OUT/auto/: results.md, cost.csv (ncu), runs.tsv, logs.tgz (every log), traces/*.ctrace.gz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
G=build-auto-gpu
R=$PWD/build-auto-run
O=${OUT:-$R/out}/auto
rm -rf "$R" && mkdir -p "$R/bin" "$R/runs" "$O/traces" "$O/logs"
ln -s "$O/logs" "$R/logs" # every log comes back, even from a call cut short (packed at the end)
log() { echo "$*" | tee -a "$O/results.md"; }
past() { (($(date +%s) - started > ${BUDGET_S:-330})); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$O/gpu.txt" 2>&1

# ---- build: the runtime with g++, every program with nvcc, all at once
RT=$R/rt
bash test/device/build_runtime_gpp.sh "$RT" "$R/logs/build_runtime.txt" -I$G/include || exit 1
LIBS=("$RT/libcutrace.a" "$RT/libcutrace_analysis.a" "$RT/libcutrace_format.a" -lpthread)
NV=(nvcc -std=c++17 -O3 -arch=sm_90)
build() { # build NAME ARGS...: nvcc into $R/bin/NAME, output in logs/build_NAME.txt
  local name=$1
  shift
  "${NV[@]}" "$@" -o "$R/bin/$name" >"$R/logs/build_$name.txt" 2>&1 || echo "BUILD FAILED: $name" >>"$R/logs/failed.txt"
}
build cost_plain bench/auto/cost.cu &
build cost_ctas -Iruntime/include -I$G/cost/ctas $G/cost/ctas/cost.cu "${LIBS[@]}" &
build cost_warps -Iruntime/include -I$G/cost/warps $G/cost/warps/cost.cu "${LIBS[@]}" &
# the iterations' bookkeeping in every warp, as before CUTRACE_AUTO_WARP_SKIP (docs/auto.md, "Cost")
build cost_ctas_allwarps -DCUTRACE_AUTO_WARP_SKIP=0 -Iruntime/include -I$G/cost/ctas $G/cost/ctas/cost.cu "${LIBS[@]}" &
# no range for the CTA's life (no entry barrier, no exit count): what the life costs
build cost_ctas_nolife -DCUTRACE_AUTO_LIFE=0 -Iruntime/include -I$G/cost/ctas $G/cost/ctas/cost.cu "${LIBS[@]}" &
build cost_warps_allwarps -DCUTRACE_AUTO_WARP_SKIP=0 -Iruntime/include -I$G/cost/warps $G/cost/warps/cost.cu "${LIBS[@]}" &
S=$G/samples
for name in mergeSort reductionMultiBlockCG warpAggregatedAtomicsCG; do
  host=$(ls $S/$name/*.cpp 2>/dev/null)
  # shellcheck disable=SC2086
  build "${name}_plain" -I$S/Common -I$S/$name $S/$name/*.cu $host &
  # shellcheck disable=SC2086
  build "${name}_auto" -Iruntime/include -I$S/Common -I$S/$name -I$S/$name/auto $S/$name/auto/*.cu \
    $host "${LIBS[@]}" &
done
for k in $(cut -d' ' -f1 $G/llmc/kernels.txt); do
  build "llmc_$k" --use_fast_math -Iruntime/include -I$G/llmc/src -I$G/llmc/auto $G/llmc/auto/$k.cu \
    "${LIBS[@]}" -lcublas -lcublasLt &
  build "llmc_${k}_plain" --use_fast_math -I$G/llmc/src $G/llmc/src/$k.cu -lcublas -lcublasLt &
done
wait
log "# --auto on $(cat "$O/gpu.txt")"
log ""
log "built in $(($(date +%s) - started)) s; $(cat "$R/logs/failed.txt" 2>/dev/null | tr '\n' ' ')"

# ---- 0. the cost program recorded without ncu, every launch, timed (a hang shows as 124)
for b in cost_plain cost_ctas cost_warps; do
  t0=$(date +%s%N)
  env CUTRACE_OUTPUT="$R/runs/all_$b" CUTRACE_FORMAT=ctrace CUTRACE_LAUNCHES=all \
    timeout 30 "$R/bin/$b" 10 >"$R/logs/all_$b.txt" 2>&1
  log "$b: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -h '^cost:' "$R/logs/all_$b.txt")"
done

# ---- 3. one recorded launch of each cost kernel, kept
# (every kernel's first launch; a row per warp of triad_flat would be 170 MB: not that one)
for b in cost_ctas cost_warps; do
  [[ ${TRACE_COST_KERNELS-*} == "" ]] && break # none kept
  kernels=${TRACE_COST_KERNELS:-*}
  [[ $b == cost_warps ]] && kernels=triad_loop,fma_chains
  env CUTRACE_OUTPUT="$R/runs/$b" CUTRACE_FORMAT=ctrace CUTRACE_LAUNCHES=first:1 \
    CUTRACE_KERNELS="$kernels" timeout 30 "$R/bin/$b" 1 >"$R/logs/$b.trace.out" 2>&1
  for f in "$R/runs/$b"/*.ctrace; do gzip -c "$f" >"$O/traces/$b.ctrace.gz"; done
done

# ---- 1. cost under ncu
ncu_run() { # ncu_run LABEL BINARY [env...]
  local label=$1 bin=$2 rc
  shift 2
  env "$@" CUTRACE_OUTPUT="$R/runs/ncu_$label" CUTRACE_FORMAT=ctrace \
    timeout 150 ncu --metrics gpu__time_duration.sum --csv "$R/bin/$bin" 10 \
    >"$R/logs/ncu_$label.csv" 2>"$R/logs/ncu_$label.err"
  rc=$?
  log "ncu $label: exit $rc; $(grep -h 'clock' "$R/logs/ncu_$label.err" | head -2)"
  if ((rc == 124)); then # stalled: once more with only the cost kernels profiled
    env "$@" CUTRACE_OUTPUT="$R/runs/ncu_k_$label" CUTRACE_FORMAT=ctrace \
      timeout 150 ncu -k 'regex:^(triad|fma)' --metrics gpu__time_duration.sum --csv "$R/bin/$bin" 10 \
      >"$R/logs/ncu_$label.csv" 2>"$R/logs/ncu_k_$label.err"
    log "ncu $label with -k: exit $?"
  fi
  grep -h '^cost:' "$R/logs/ncu_$label.csv" "$R/logs/ncu_$label.err" | sed "s/^/$label /" >>"$O/checksums.txt"
  grep '"gpu__time_duration.sum"' "$R/logs/ncu_$label.csv" | sed "s/^/\"$label\",/" >>"$O/cost.csv"
}
# recording on first (a plain and a CUTRACE=0 run may come from an earlier call: NCU_BUILDS).
# ncu runs each kernel to its end before the launch returns: the runtime's clock probe gives up
# after 200 ms then, and the run file says its clocks are not aligned (the ncu_*.err logs).
# what a program sees of ncu in its environment (how the runtime could tell it runs under ncu)
timeout 30 ncu --metrics gpu__time_duration.sum env 2>&1 | grep -i -E 'inject|nsight|ncu|nv_|tps' \
  >"$R/logs/ncu_env.txt"
for build in ${NCU_BUILDS:-ctas warps plain off}; do
  past && { echo "skipped past the budget: ncu $build" >>"$O/skipped.txt"; continue; }
  case $build in
  plain) ncu_run plain_1 cost_plain ;;
  off) ncu_run off_1 cost_ctas CUTRACE=0 ;;
  ctas) ncu_run ctas_1 cost_ctas CUTRACE_LAUNCHES=all ;;
  ctas0) ncu_run ctas0_1 cost_ctas_allwarps CUTRACE_LAUNCHES=all ;;
  nolife) ncu_run nolife_1 cost_ctas_nolife CUTRACE_LAUNCHES=all ;;
  warps0) ncu_run warps0_1 cost_warps_allwarps CUTRACE_LAUNCHES=all CUTRACE_KERNELS=triad_loop,fma_chains ;;
  # a row per warp of triad_flat's 262144 CTAs would be 170 MB a launch: it runs unrecorded
  warps) ncu_run warps_1 cost_warps CUTRACE_LAUNCHES=all CUTRACE_KERNELS=triad_loop,fma_chains ;;
  esac
done
log "cost measured in $(($(date +%s) - started)) s"

# ---- 2. programs, plain and --auto (recorded), JOBS at a time
printf 'program\targ\tbuild\tstatus\tverdict\tms\trecorded\n' >"$O/runs.tsv"
mkdir -p "$R/rows"
run() { # run NAME BUILD ARG CHECK: CHECK is the line the program prints when it passed ("" = exit 0)
  local name=$1 build=$2 arg=$3 check=$4 t0 rc verdict bin=$1 log
  [[ $build == plain ]] && bin=${name}_plain
  [[ $name != llmc_* && $build == auto ]] && bin=${name}_auto
  log=$R/logs/run_$name${arg}_$build.txt
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  env CUTRACE_OUTPUT="$R/runs/$name${arg}_$build" CUTRACE_FORMAT=ctrace timeout 120 "$R/bin/$bin" $arg \
    >"$log" 2>&1
  rc=$?
  verdict=fail
  ((rc == 0)) && { [[ -z $check ]] || grep -q "$check" "$log"; } && verdict=pass
  grep -q "Invalid kernel number" "$log" && verdict=no-such-kernel
  ((rc == 124)) && verdict=timeout
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$arg" "$build" "$rc" "$verdict" \
    "$((($(date +%s%N) - t0) / 1000000))" \
    "$(grep -ho 'recorded [0-9]* of [0-9]* launch[a-z]*' "$log" | tail -1)" >"$R/rows/$name${arg}_$build"
}
export -f run
export R
jobs_file=$R/jobs.txt
: >"$jobs_file"
for name in mergeSort reductionMultiBlockCG warpAggregatedAtomicsCG; do
  # the samples say it by their exit status (EXIT_SUCCESS only when their checks hold)
  for b in plain auto; do echo "$name $b - -" >>"$jobs_file"; done
done
# every kernel number of each program (the case labels of its dispatch; permute has none)
while read -r k nums; do
  [[ -x $R/bin/llmc_$k ]] || continue
  for n in ${nums:-1}; do
    for b in plain auto; do echo "llmc_$k $b $n All_results_match" >>"$jobs_file"; done
  done
done <$G/llmc/kernels.txt
left=$((${BUDGET_S:-330} - ($(date +%s) - started)))
# shellcheck disable=SC2016
timeout "$((left > 10 ? left : 10))" xargs -P "${JOBS:-8}" -L 1 bash -c \
  'a=$3 c=$4; [[ $a == - ]] && a=""; [[ $c == - ]] && c=""; run "$1" "$2" "$a" "${c//_/ }"' _ \
  < <(grep -E "${ONLY:-.}" "$jobs_file")
cat "$R"/rows/* 2>/dev/null | sort >>"$O/runs.tsv"
while read -r name b a _; do
  [[ $a == - ]] && a=""
  [[ -f $R/rows/$name${a}_$b ]] || echo "skipped past the budget: $name $a $b" >>"$O/skipped.txt"
done < <(grep -E "${ONLY:-.}" "$jobs_file")
for p in ${TRACE_PROGRAMS:-mergeSort_auto llmc_layernorm_forward1_auto}; do
  for f in "$R/runs/$p"/*.ctrace; do
    [[ -f $f ]] && gzip -c "$f" >"$O/traces/$(basename "$(dirname "$f")").ctrace.gz" && break
  done
done
log "programs run in $(($(date +%s) - started)) s"


log ""
log "$(column -t -s $'\t' "$O/runs.tsv" 2>/dev/null || cat "$O/runs.tsv")"
cp "$O"/logs/failed.txt "$O/" 2>/dev/null
ls -la "$R"/runs/ncu_* >"$O/logs/ncu_run_files.txt" 2>&1
tar -czf "$O/logs.tgz" -C "$O" logs && rm -rf "$O/logs"
ls -la "$O" "$O/traces" >>"$O/results.md"
tar -cf "$O/traces.tar" -C "$O" traces && rm -rf "$O/traces" # few files come back: one archive
