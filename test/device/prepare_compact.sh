#!/usr/bin/env bash
# Run here (where trace-rewrite builds): generates into .carry/gen/ (ignored by git) the traced and
# stripped sources test/device/h200_compact.sh compiles on the H200 with the default recorder and
# the compact one (CUTRACE_COMPACT=1, cutrace/device_compact.h). Besides the sources of
# test/device/prepare_recorder.sh: copies of examples/hopper_pipeline and of the SGEMM whose
# scoped ranges carry no payload (the `, stage)` / `, k0 / kDepth)` argument removed), so their
# ranges can be one 8-byte record each.
#   bash test/device/prepare_compact.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
bash test/device/prepare_recorder.sh "$tool"
G=.carry/gen
mkdir -p "$G/nopay"
sed -E 's/TRACE_RANGE\(("[a-z_]+"), ("[a-z]+"), (stage|tile)\)/TRACE_RANGE(\1, \2)/' \
  examples/hopper_pipeline/hopper_pipeline.cu >"$G/nopay/hopper_pipeline.cu"
sed -E 's/TRACE_RANGE\(("[a-z]+"), ("[a-z]+"), k0 \/ kDepth\)/TRACE_RANGE(\1, \2)/' \
  bench/gpu/gemm_overhead.cu >"$G/nopay/gemm_overhead.cu"
n=$(grep -c 'TRACE_RANGE("[a-z_]*", "[a-z]*")' "$G/nopay/hopper_pipeline.cu" "$G/nopay/gemm_overhead.cu" |
  awk -F: '{s += $2} END {print s}')
[[ $n == 7 ]] || { echo "prepare_compact.sh: expected 7 ranges without payload, found $n" >&2; exit 1; }
for f in hopper_pipeline gemm_overhead; do
  mkdir -p "$G/${f}_nopay"
  "$tool" --traced "$G/nopay/$f.cu" -o "$G/${f}_nopay/$f.traced.cu" \
    --max-events "$([[ $f == gemm_overhead ]] && echo 1100 || echo 4096)" \
    -- -Iexamples/common -Iexamples/hopper_pipeline
done
du -sh .carry
