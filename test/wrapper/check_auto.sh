#!/usr/bin/env bash
# cutrace-nvcc --cutrace-auto (docs/auto.md; docs/cli.md, "cutrace-nvcc"): test/wrapper/auto/saxpy.cu, a program
# without annotations, compiled and linked by the wrapper; each check states a rule. No GPU
# needed: the objects and the program are inspected, never run.
#
# usage: check_auto.sh <cutrace-nvcc> <nvcc>
set -uo pipefail

wrapper=$(realpath "$1")
nvcc=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir auto) || exit 1
trap 'rm -rf "$work"' EXIT
source "$here/../support/checks.sh"
cp "$here/auto/saxpy.cu" "$work/"
cd "$work" || exit 1
compile() { # <object> [wrapper options...]: traced compile of saxpy.cu, its log beside it
  local o=$1; shift
  CUTRACE_MODE=traced "$wrapper" "$@" -arch=sm_90 -std=c++17 -c saxpy.cu -o "$o" >"$o.log" 2>&1
}
map() { cat "$1.cutrace"/saxpy.trace_map.json 2>/dev/null; } # the decode map beside an object

echo "--- without --cutrace-auto: a file with no annotation is compiled as it is"
if compile plain.o; then
  check "Auto.OffByDefaultNoTwin" bash -c "! nm -C plain.o | grep -q cutrace_traced"
else
  fail "Auto.OffByDefaultNoTwin"; cat plain.o.log
fi

echo "--- --cutrace-auto: every kernel gets a twin, a row per CTA"
if compile ctas.o --cutrace-auto; then
  check "Auto.EveryKernelGetsItsTwin" \
    bash -c "nm -C ctas.o >nm.txt && grep -q 'saxpy_cutrace_traced' nm.txt && grep -q 'fill_cutrace_traced' nm.txt"
  check "Auto.OriginalsKeptBesideTwins" bash -c "nm -C ctas.o | grep -q ' saxpy(float'"
  map ctas.o >ctas.json
  check "Auto.LifeRangeNamedAfterTheKernel" grep -q '"name": "saxpy"' ctas.json
  check "Auto.CtasMapHasOneRowPerCta" grep -q '"name": "cta"' ctas.json
else
  fail "Auto.EveryKernelGetsItsTwin"; cat ctas.o.log
fi

echo "--- --cutrace-auto=warps --cutrace-auto-kernels=-fill"
if compile warps.o --cutrace-auto=warps --cutrace-auto-kernels=-fill; then
  check "Auto.KernelsPatternLeavesExcludedKernelAlone" \
    bash -c "nm -C warps.o >nm.txt && grep -q 'saxpy_cutrace_traced' nm.txt && ! grep -q 'fill_cutrace_traced' nm.txt"
  map warps.o >warps.json
  check "Auto.WarpsMapHasOneRowPerWarp" \
    bash -c "grep -q '\"name\": \"warp\"' warps.json && grep -q '\"slice_threads\": 32' warps.json"
else
  fail "Auto.KernelsPatternLeavesExcludedKernelAlone"; cat warps.o.log
fi

echo "--- CUTRACE_AUTO in the environment, as a build system passes it"
if CUTRACE_AUTO=ctas compile env.o; then
  check "Auto.EnvironmentEqualsOption" bash -c "nm -C env.o | grep -q 'fill_cutrace_traced'"
else
  fail "Auto.EnvironmentEqualsOption"; cat env.o.log
fi

echo "--- bad values stop the compile with a message and write nothing"
for bad in "--cutrace-auto=blocks" "--cutrace-auto-kernels=fill"; do
  rm -f bad.o
  if compile bad.o "$bad"; then
    fail "Auto.BadValueIsAnError ($bad accepted)"
  else
    grep -q "cutrace-nvcc: error: CUTRACE_AUTO" bad.o.log && [[ ! -e bad.o ]] &&
      pass "Auto.BadValueIsAnError ($bad)" || { fail "Auto.BadValueIsAnError ($bad)"; cat bad.o.log; }
  fi
done

echo "--- strip mode: --cutrace-auto changes nothing (there is nothing to strip)"
if CUTRACE_MODE=strip "$wrapper" --cutrace-auto -arch=sm_90 -std=c++17 -cubin saxpy.cu -o strip.cubin \
  >strip.log 2>&1 && "$nvcc" -arch=sm_90 -std=c++17 -cubin saxpy.cu -o plain.cubin; then
  check "Auto.StripBuildIsThePlainBuild" same_text plain.cubin strip.cubin
else
  fail "Auto.StripBuildIsThePlainBuild"; cat strip.log
fi

echo "--- a traced link: the program gets the runtime"
if compile link.o --cutrace-auto && CUTRACE_MODE=traced "$wrapper" -arch=sm_90 link.o -o app \
  >link.log 2>&1; then
  check "Auto.TracedLinkAddsTheRuntime" has_symbol app 'cutrace::DeviceBuffer::allocate'
else
  fail "Auto.TracedLinkAddsTheRuntime"; cat link.log
fi

if ((failures)); then
  echo "check_auto: $failures failure(s)"
  exit 1
fi
echo "check_auto: all passed"
