#!/usr/bin/env bash
# Where the traced cost of examples/hopper_pipeline goes, on an H200 (prepare with
# prepare_h200.sh, then prepare_cost_probe.sh, here; carry .carry). Each variant is built traced
# and times, in one process, its original kernel and its twin interleaved (--repeat), over
# rounds; "twin/original" is the traced cost. Also the recorder before/after A/B on the full
# example, the layernorm example and the SGEMM, and the twins' SASS.
#   bash test/device/h200_cost_probe.sh [arch] [output dir]      (default sm_90a, $OUT)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90a}
out=${2:-${OUT:-$PWD/build-cost-out}}/cost
export PATH=/usr/local/cuda/bin:$PATH
C=.carry/cost G=.carry/gen R=$PWD/build-cost
rm -rf "$R" "$out" && mkdir -p "$R/obj" "$out/logs" "$out/sass"
NVCC=(nvcc -std=c++17 -O3 -arch="$arch" -Iruntime/include -I.carry/include)
BEFORE=(-I$C/include_before)
bg() { while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done; "$@" & }
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }
for f in runtime/src/format/*.cpp runtime/src/analysis/*.cpp runtime/src/capture/*.cpp \
  runtime/src/capture/outputs/all_formats.cpp; do
  bg "${NVCC[@]}" -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o"
done
drain
OBJ=("$R"/obj/*.o)
build() { # build <name> <source> [options]
  local name=$1 src=$2; shift 2
  "${NVCC[@]}" -Xptxas -v "$@" "$src" "${OBJ[@]}" -o "$R/$name" >"$out/logs/build_$name.txt" 2>&1 ||
    echo "build $name FAILED" | tee -a "$out/summary.txt"
}
for v in all consumer_only producer_only compute_only groups_only sampled; do
  bg build "hopper_$v" "$C/$v/hopper_pipeline.traced.cu" -I$C/$v -Iexamples/hopper_pipeline
done
bg build hopper_all_before "$C/all/hopper_pipeline.traced.cu" "${BEFORE[@]}" -I$C/all \
  -Iexamples/hopper_pipeline
bg build layernorm_after $G/layernorm/layernorm.traced.cu -I$G/layernorm -Iexamples/layernorm
bg build layernorm_before $G/layernorm/layernorm.traced.cu "${BEFORE[@]}" -I$G/layernorm \
  -Iexamples/layernorm
bg build gemm_after $G/gemm_traced/gemm_overhead.traced.cu -I$G/gemm_traced
bg build gemm_before $G/gemm_traced/gemm_overhead.traced.cu "${BEFORE[@]}" -I$G/gemm_traced
bg "${NVCC[@]}" $G/bench_stripped/gemm_overhead.cu -o "$R/gemm_stripped"
drain
for b in "$R"/hopper_* "$R"/layernorm_*; do
  cuobjdump -sass "$b" >"$out/sass/$(basename "$b").sass" 2>/dev/null || true
done
{
  echo "# registers (ptxas -v), twins"
  for f in "$out"/logs/build_*.txt; do
    echo "$(basename "$f" .txt): $(grep -A2 'cutrace_traced' "$f" | grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | paste -sd' ')"
  done
} >>"$out/summary.txt"
rounds=${COST_ROUNDS:-3}
echo "# twin/original in one process (--repeat), per round" >>"$out/summary.txt"
for round in $(seq 1 "$rounds"); do
  for b in hopper_all hopper_all_before hopper_consumer_only hopper_producer_only \
    hopper_compute_only hopper_groups_only hopper_sampled; do
    [[ -x $R/$b ]] || continue
    line=$(CUTRACE_OUTPUT=$R/out_$b CUTRACE_FORMAT=ctrace timeout 120 "$R/$b" --repeat 30 2>&1 |
      grep -h 'time build=' | sed 's/^[a-z_]*: time //')
    echo "$b round $round: $line" | tee -a "$out/summary.txt"
  done
  for b in layernorm_after layernorm_before; do
    [[ -x $R/$b ]] || continue
    line=$(CUTRACE_OUTPUT=$R/out_$b CUTRACE_FORMAT=ctrace timeout 120 "$R/$b" --repeat 200 2>&1 |
      grep -h 'time build=' | sed 's/^[a-z_]*: time //')
    echo "$b round $round: $line" | tee -a "$out/summary.txt"
  done
  (cd "$R" && ./gemm_stripped 41 && ./gemm_after 41 && ./gemm_before 41) >>"$out/gemm.csv" 2>&1 || true
done
echo "# gemm: stripped, after, before (rows of gemm.csv)" >>"$out/summary.txt"
cat "$out/gemm.csv" >>"$out/summary.txt"
cat "$out/summary.txt"
