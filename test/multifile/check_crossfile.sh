#!/usr/bin/env bash
# A kernel spread over three headers as CUTLASS 3 writes one (test/multifile/crossfile): the
# generic kernel (kit/device_kernel.h, no annotations) calls the kernel class's operator()
# (kit/gemm_kernel.h, the groups), which calls the collective's load()/mma() (kit/collective.h,
# the ranges). The body of operator() is device code only (`#if defined(__CUDA_ARCH__)`), as
# CUTLASS guards its kernels' bodies, so only the device pass sees its groups and its calls.
# Twins reach callees in their kernel's own file only (docs/annotations.md, "Helpers"), so today
# nothing of this records: the rules checked here are that the device pass runs for the headers'
# annotations (no "inactive #if branch" warning, every header copied), that the rewrite names,
# for each annotated callee, the kernel of the other file that reaches it, and that the traced
# program compiles for sm_90a. No GPU.
#
# usage: check_crossfile.sh <trace-rewrite> <cutrace source dir> <nvcc>
set -uo pipefail
tool=$(realpath "$1")
src=$(realpath "$2")
nvcc=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cutrace-crossfile.XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/crossfile" && pwd)
flags=(-std=c++17 -I "$dir/include" -I "$src/runtime/include")

out=$work/rewrite
mkdir -p "$out"
warned() { # <header> <line:col> <function>: the warning at that place names the other file's kernel
  grep -qF "$dir/include/kit/$1:$2: warning: '$3' is reached only from kernel 'kit::device_kernel' (device_kernel.h), defined in another file" "$out/log"
}
if "$tool" --traced "$dir/gemm.cu" --cuda-gpu-arch=sm_90a -o "$out/gemm.traced.cu" -- "${flags[@]}" \
  >"$out/log" 2>&1; then
  pass "CrossFile.RewriteSucceeds"
  check "CrossFile.KernelKernelClassAndCollectiveHeadersAreCopied" bash -c "
    [[ \$(cd '$out/gemm.traced.headers/include/kit' && ls *.h | grep -v trace_map | tr '\n' ' ') == \
       'collective.h device_kernel.h gemm_kernel.h ' ]]"
  check "CrossFile.CollectiveLoadReachedOnlyFromAnotherFilesKernelIsNamedInAWarning" \
    warned collective.h 11:7 load
  check "CrossFile.CollectiveMmaReachedOnlyFromAnotherFilesKernelIsNamedInAWarning" \
    warned collective.h 18:7 mma
  check "CrossFile.GroupsOfAnOperatorReachedOnlyFromAnotherFilesKernelAreNamedInAWarning" \
    warned gemm_kernel.h 20:7 'operator()'
  check "CrossFile.NoAnnotationIsReportedInAnInactiveBranch" bash -c "! grep -q 'no parsed configuration' '$out/log'"
  if "$nvcc" "${flags[@]}" -arch=sm_90a -c "$out/gemm.traced.cu" -o "$out/gemm.o" >"$out/nvcc.log" 2>&1; then
    pass "CrossFile.TracedOutputCompilesForSm90a"
  else
    fail "CrossFile.TracedOutputCompilesForSm90a"
    cat "$out/nvcc.log"
  fi
else
  fail "CrossFile.RewriteSucceeds"
  cat "$out/log"
fi

if ((failures)); then
  echo "crossfile: $failures failure(s)"
  exit 1
fi
echo "crossfile: all checks passed"
