#!/usr/bin/env bash
# cutrace-nvcc gives the parse every arch of the nvcc command line: with -gencode for sm_80 and
# sm_90, both #if __CUDA_ARCH__ branches of test/inputs/traced/arch_branches.cu are traced and
# none is dropped with a warning.
# usage: check_arches.sh CUTRACE_NVCC NVCC
set -uo pipefail
wrapper=$1 nvcc=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/../inputs/traced/arch_branches.cu" "$work/"
cd "$work"
CUTRACE_MODE=traced CUTRACE_NVCC=$nvcc "$wrapper" -std=c++17 \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
  -I"$here/../../runtime/include" -c arch_branches.cu -o ab.o > out.txt 2>&1
rc=$?
fail() { echo "FAIL: $*"; cat out.txt; exit 1; }
((rc == 0)) || fail "the wrapper exited $rc"
[[ -f ab.o ]] || fail "no object written"
grep -q "no parsed configuration compiles" out.txt && fail "a branch was dropped"
generated=ab.o.cutrace/arch_branches.cu
grep -q "__cutrace_range_0" "$generated" || fail "the sm_90 branch is not traced"
grep -q "__cutrace_range_1" "$generated" || fail "the sm_80 branch is not traced"
echo "PASS: both arch branches traced"
