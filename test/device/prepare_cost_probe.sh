#!/usr/bin/env bash
# Run here after prepare_h200.sh: writes into .carry/cost/ the variants that
# test/device/h200_cost_probe.sh times on the H200 to find where the traced cost of
# examples/hopper_pipeline goes: the example with subsets of its annotations, every marker
# predicated (_IF), no marker at all (groups only), and the recorder of the previous commit
# (.carry/cost/include_before) for an A/B of the device code itself.
#   bash test/device/prepare_cost_probe.sh [trace-rewrite] [git revision of the A side]
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
before=${2:-HEAD~1}
C=.carry/cost
rm -rf "$C" && mkdir -p "$C/include_before/cutrace"
git show "$before:runtime/include/cutrace/device.h" >"$C/include_before/cutrace/device.h"
src=examples/hopper_pipeline/hopper_pipeline.cu
variant() { # variant <name> <sed script>
  mkdir -p "$C/$1"
  sed -e "$2" "$src" >"$C/$1/hopper_pipeline.cu"
  "$tool" --traced "$C/$1/hopper_pipeline.cu" -o "$C/$1/hopper_pipeline.traced.cu" \
    -- -Iexamples/hopper_pipeline -Iexamples/common 2>"$C/$1/rewrite.log"
}
variant all ''
variant consumer_only '/TRACE_RANGE("wait_empty"/d; /TRACE_RANGE("load"/d'
variant producer_only '/TRACE_RANGE("wait",/d; /TRACE_RANGE("compute"/d; /TRACE_RANGE("epilogue"/d'
variant compute_only '/TRACE_RANGE("wait_empty"/d; /TRACE_RANGE("load"/d; /TRACE_RANGE("wait",/d; /TRACE_RANGE("epilogue"/d'
variant groups_only '/TRACE_RANGE(/d'
variant sampled 's/TRACE_RANGE("\(wait_empty\|load\|wait\|compute\)"/TRACE_RANGE_IF(stage % 8 == 0, "\1"/'
grep -c 'TRACE_RANGE' "$C"/*/hopper_pipeline.cu
