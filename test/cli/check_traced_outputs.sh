#!/usr/bin/env bash
# What a --traced run writes beside its output (docs/cli.md, "Files written"): the decode map and
# the header copies are named after the output file, so inputs of one name traced into one
# folder keep theirs apart; a run that fails writes nothing, maps and header copies included.
# usage: check_traced_outputs.sh <trace-rewrite>
set -uo pipefail
tool=$(realpath "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/cutrace-traced-outputs.XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
cd "$work"

# Two inputs named k.cu, each with an annotated header named h.cuh; the site names differ.
for d in x y; do
  mkdir -p "$d"
  printf '#include <cutrace/trace.h>\n__device__ void helper_%s() { TRACE_RECORD("in_%s_header"); }\n' \
    "$d" "$d" >"$d/h.cuh"
  printf '#include <cutrace/trace.h>\n#include "h.cuh"\n__global__ void k(int *p) {\n  TRACE_RECORD("site_%s");\n  helper_%s();\n  p[0] = 1;\n}\n' \
    "$d" "$d" >"$d/k.cu"
done

"$tool" --traced x/k.cu -o out/k_x.traced.cu 2>x.err
"$tool" --traced y/k.cu -o out/k_y.traced.cu 2>y.err
check "TracedOutputs.MapIsNamedAfterTheOutputFile" \
  test -f out/k_x.trace_map.h -a -f out/k_x.trace_map.json -a -f out/k_y.trace_map.h
check "TracedOutputs.SameStemInOneFolderKeepsEachInputsSites" bash -c \
  'grep -q site_x out/k_x.trace_map.h && ! grep -q site_y out/k_x.trace_map.h &&
   grep -q site_y out/k_y.trace_map.h && grep -q site_y out/k_y.trace_map.json'
check "TracedOutputs.TracedFileIncludesTheMapNamedAfterIt" bash -c \
  'grep -q "#include \"k_x.trace_map.h\"" out/k_x.traced.cu &&
   grep -q "#include \"k_y.trace_map.h\"" out/k_y.traced.cu'
check "TracedOutputs.HeaderCopiesAreNamedAfterTheOutputFile" bash -c \
  'grep -q in_x_header out/k_x.traced.headers/h.cuh && grep -q in_y_header out/k_y.traced.headers/h.cuh'
check "TracedOutputs.NoFileIsNamedAfterTheSharedInputStem" bash -c \
  '! ls out | grep -q "^k\."'

# The name CMake's cutrace_instrument() and cutrace-nvcc rely on: <stem>.traced.cu and <stem>.cu
# both give <stem>.trace_map.h.
"$tool" --traced x/k.cu -o plain/k.traced.cu 2>/dev/null
"$tool" --traced x/k.cu -o wrapped/k.cu 2>/dev/null
check "TracedOutputs.TracedSuffixIsLeftOutOfTheMapName" test -f plain/k.trace_map.h
check "TracedOutputs.OutputWithoutTracedSuffixNamesTheMapAfterItsStem" test -f wrapped/k.trace_map.h

# A run that cannot write its output (status 2) leaves an earlier run's files as they were.
mkdir -p z
printf '#include <cutrace/trace.h>\n__global__ void k(int *p) {\n  TRACE_RECORD("site_z");\n  p[0] = 1;\n}\n' >z/k.cu
cp -r out before
"$tool" --traced z/k.cu -o /dev/full --map out/k_x.trace_map.h 2>full.err
status=$?
check "TracedOutputs.UnwritableOutputExits2" test "$status" = 2
check "TracedOutputs.FailedRunLeavesAnExistingMapUnchanged" bash -c \
  'cmp -s before/k_x.trace_map.h out/k_x.trace_map.h && cmp -s before/k_x.trace_map.json out/k_x.trace_map.json'
check "TracedOutputs.FailedRunLeavesNoTemporaryFile" bash -c \
  'diff <(cd before && find . | sort) <(cd out && find . | sort) >/dev/null'
"$tool" --traced z/k.cu -o /dev/full --map new/k.trace_map.h 2>/dev/null
check "TracedOutputs.FailedRunWritesNoMap" test ! -e new/k.trace_map.h -a ! -e new/k.trace_map.json

# A header copy that cannot be written (its folder's name is taken by a file): status 2, and
# neither the traced file nor the map is written.
mkdir -p blocked && touch blocked/k.traced.headers
"$tool" --traced x/k.cu -o blocked/k.traced.cu 2>blocked.err
status=$?
check "TracedOutputs.UnwritableHeaderCopyExits2" test "$status" = 2
check "TracedOutputs.UnwritableHeaderCopyWritesNothing" bash -c \
  'test "$(ls -A blocked)" = k.traced.headers'

[[ $failures == 0 ]]
