#!/usr/bin/env bash
# A template kernel's instance taken as a value registers its (original, twin) pair before main
# (docs/launches.md, "Kernels taken as values"): value_use_registers.cu, built traced with
# cutrace-nvcc and linked with the runtime, finds the pair through the registry's lookup when
# main starts, and the twin it finds is the instance's twin (its distance from the original equals
# the symbol table's). Runs without a GPU.
#
# usage: check_value_use.sh <cutrace-nvcc>
set -uo pipefail
wrapper=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir value-use) || exit 1
trap 'rm -rf "$work"' EXIT
source "$here/../support/checks.sh"
cp "$here/value_use_registers.cu" "$work/"

address() { # <binary> <demangled symbol>: its address, as a number
  local hex
  nm -C "$1" >"$work/nm.txt" &&
    hex=$(awk -v s="$2" 'substr($0, length($1) + 4) == s { print $1; exit }' "$work/nm.txt") &&
    [[ -n $hex ]] && echo $((16#$hex))
}

echo "--- traced: cutrace-nvcc -arch=sm_90 value_use_registers.cu"
if (cd "$work" && CUTRACE_MODE=traced "$wrapper" -std=c++17 -arch=sm_90 value_use_registers.cu \
  -o prog) >"$work/build.log" 2>&1; then
  pass "ValueUse.TracedProgramBuilds"
  check "ValueUse.RoutedUseIsNotWarnedAbout" bash -c "! grep -q warning '$work/build.log'"
  if "$work/prog" >"$work/run.txt" 2>&1; then
    pass "ValueUse.PairOfAValueUsedTemplateInstanceIsRegisteredBeforeMain"
    original=$(address "$work/prog" 'void scale<float, 2>(float*)')
    twin=$(address "$work/prog" 'void scale_cutrace_traced<float, 2>(float*, cutrace::Slots*)')
    check "ValueUse.RegisteredTwinIsTheInstancesTwin" \
      grep -qx "twin - original = $((twin - original))" "$work/run.txt"
  else
    fail "ValueUse.PairOfAValueUsedTemplateInstanceIsRegisteredBeforeMain"
  fi
  cat "$work/run.txt"
else
  fail "ValueUse.TracedProgramBuilds"
  cat "$work/build.log"
fi
[[ $failures == 0 ]]
