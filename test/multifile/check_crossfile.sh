#!/usr/bin/env bash
# A kernel spread over three headers as CUTLASS 3 writes one (test/multifile/crossfile): the
# generic kernel (kit/device_kernel.h, no annotations) calls the kernel class's operator()
# (kit/gemm_kernel.h, the groups), which calls the collective's load()/mma() (kit/collective.h,
# the ranges). The body of operator() is device code only (`#if defined(__CUDA_ARCH__)`), as
# CUTLASS guards its kernels' bodies, so only the device pass sees its groups and its calls.
# The translation unit is planned as a whole (docs/design.md, "Calls across files"): the generic
# kernel gets a twin whose map lists the kernel class's groups and the collective's sites, each
# function's twin is written in its own header, the calls between them are routed, and the
# traced twin reads the clock while the original does not. No GPU.
#
# usage: check_crossfile.sh <trace-rewrite> <cutrace source dir> <nvcc>
set -uo pipefail
tool=$(realpath "$1")
src=$(realpath "$2")
nvcc=$3
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir crossfile) || exit 1
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/crossfile" && pwd)
flags=(-std=c++17 -I "$dir/include" -I "$src/runtime/include")

out=$work/rewrite
mkdir -p "$out"
copies=$out/gemm.traced.headers/include/kit
map=$copies/device_kernel.trace_map.json
jq_true() { # <jq filter> <file>: the filter holds
  python3 -c 'import json,sys; sys.exit(0 if eval(sys.argv[1], {"m": json.load(open(sys.argv[2]))}) else 1)' "$1" "$2"
}
if "$tool" --traced "$dir/gemm.cu" --cuda-gpu-arch=sm_90a -o "$out/gemm.traced.cu" -- "${flags[@]}" \
  >"$out/log" 2>&1; then
  pass "CrossFile.RewriteSucceeds"
  check "CrossFile.NothingIsReportedUnreachedOrUnexpanded" bash -c "! grep -q 'warning:' '$out/log'"
  check "CrossFile.KernelKernelClassAndCollectiveHeadersAreCopied" bash -c "
    [[ \$(cd '$copies' && ls *.h | grep -v trace_map | tr '\n' ' ') == \
       'collective.h device_kernel.h gemm_kernel.h ' ]]"
  check "CrossFile.GenericKernelGetsATwin" grep -q 'device_kernel_cutrace_traced(typename Operator::Params params, cutrace::Slots\* __cutrace_slots' "$copies/device_kernel.h"
  check "CrossFile.GenericKernelCallsTheOperatorTwinThroughADispatcher" grep -q 'cutrace_route_call(0, __cutrace_producer_0, op, params, smem);' "$copies/device_kernel.h"
  check "CrossFile.OperatorTwinIsWrittenInTheKernelClassHeader" grep -q 'void cutrace_traced_call(__CutraceGroup &__cutrace_group, Params const &params, char \*smem)' "$copies/gemm_kernel.h"
  check "CrossFile.OperatorTwinRoutesToTheCollectiveTwins" bash -c "grep -q 'cutrace_route_load(0, __cutrace_producer_g0, collective_mainloop' '$copies/gemm_kernel.h' && grep -q 'cutrace_route_mma(0, __cutrace_consumer_g1, collective_mainloop' '$copies/gemm_kernel.h'"
  check "CrossFile.CollectiveTwinsAreWrittenInTheCollectiveHeader" bash -c "grep -q 'load_cutrace_traced(__CutraceGroup &__cutrace_group' '$copies/collective.h' && grep -q 'mma_cutrace_traced(__CutraceGroup &__cutrace_group' '$copies/collective.h'"
  check "CrossFile.GenericKernelMapHoldsTheKernelClassGroups" jq_true \
    'm["kernels"][0]["kernel"] == "kit::device_kernel" and [(g["name"], g["lead"]) for g in m["kernels"][0]["groups"]] == [("producer", "0"), ("consumer", "slice")]' "$map"
  check "CrossFile.GenericKernelMapHoldsTheCollectiveSitesWithTheirHeaderLocations" jq_true \
    '[(s["name"], s["loc"], s["helper"]) for s in m["kernels"][0]["sites"]] == [("load_tile", "collective.h:11:7", "kit::Collective::load"), ("consume", "collective.h:18:7", "kit::Collective::mma")]' "$map"
  check "CrossFile.SitesStructNamesEveryReachedFunction" bash -c "grep -q 'kit__Collective__load_9 = 0;' '$copies/device_kernel.trace_map.h' && grep -q 'kit__Collective__mma_15 = 1;' '$copies/device_kernel.trace_map.h' && grep -q 'kit__GemmKernel__operator___15_group_1 = 1;' '$copies/device_kernel.trace_map.h'"
  check "CrossFile.NoAnnotationIsReportedInAnInactiveBranch" bash -c "! grep -q 'no parsed configuration' '$out/log'"
  if "$nvcc" "${flags[@]}" -arch=sm_90a -ptx "$out/gemm.traced.cu" -o "$out/gemm.ptx" >"$out/nvcc.log" 2>&1; then
    pass "CrossFile.TracedOutputCompilesForSm90a"
    # The body of each entry: the twin records (reads the clock), the original does not.
    entry() { awk -v want="$1" '/^\.visible \.entry/ { on = index($0, want) > 0 } on' "$out/gemm.ptx"; }
    check "CrossFile.TwinOfTheGenericKernelReadsTheClock" bash -c "$(declare -f entry); out='$out'; entry device_kernel_cutrace_traced | grep -q '%clock64'"
    check "CrossFile.OriginalGenericKernelDoesNotReadTheClock" bash -c "$(declare -f entry); out='$out'; [[ -n \$(awk '/^\.visible \.entry/ && !/cutrace_traced/ { on = 1; next } /^\.visible \.entry/ { on = 0 } on' '$out/gemm.ptx') ]] && ! awk '/^\.visible \.entry/ && !/cutrace_traced/ { on = 1; next } /^\.visible \.entry/ { on = 0 } on' '$out/gemm.ptx' | grep -q '%clock64'"
  else
    fail "CrossFile.TracedOutputCompilesForSm90a"
    cat "$out/nvcc.log"
  fi
else
  fail "CrossFile.RewriteSucceeds"
  cat "$out/log"
fi

# Two partial specializations with a member of one name at one line, in two headers.
pol=$work/policies
mkdir -p "$pol"
if "$tool" --traced "$dir/policies.cu" --cuda-gpu-arch=sm_90a -o "$pol/policies.traced.cu" -- "${flags[@]}" \
  >"$pol/log" 2>&1; then
  check "CrossFile.MembersOfTwoSpecializationsAtOneLineKeepTheirOwnSites" jq_true \
    'sorted(s["name"] for s in m["kernels"][0]["sites"]) == ["consume_fp8", "consume_plain"]' "$pol/policies.trace_map.json"
  check "CrossFile.MembersOfTwoSpecializationsAtOneLineHaveTwoKeys" bash -c "
    [[ \$(grep -c 'static constexpr uint32_t kit__Mainloop__mma_8_' '$pol/policies.trace_map.h') == 2 ]]"
  if "$nvcc" "${flags[@]}" -arch=sm_90a -c "$pol/policies.traced.cu" -o "$pol/policies.o" >"$pol/nvcc.log" 2>&1; then
    pass "CrossFile.TwoSpecializationsTracedOutputCompiles"
  else
    fail "CrossFile.TwoSpecializationsTracedOutputCompiles"
    cat "$pol/nvcc.log"
  fi
else
  fail "CrossFile.TwoSpecializationsRewriteSucceeds"
  cat "$pol/log"
fi

if ((failures)); then
  echo "crossfile: $failures failure(s)"
  exit 1
fi
echo "crossfile: all checks passed"
