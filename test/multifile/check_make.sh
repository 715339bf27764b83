#!/usr/bin/env bash
# examples/multifile with its plain Makefile and the compiler wrapper (docs/guide.md, "Your real
# project"): `make -j2 NVCC=cutrace-nvcc` traced and stripped, dependency tracking of the traced
# header copies, and the stripped cubins' .text equal to the never-annotated project's. No GPU.
#
# usage: check_make.sh <cutrace-nvcc> <trace-rewrite> <nvcc>
set -uo pipefail
wrapper=$(realpath "$1")
tool=$(realpath "$2")
nvcc=$3
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir multifile-make) || exit 1
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cp -r "$example" "$work/src" # touching its headers must leave the checkout alone
p=$work/src

echo "--- traced: make -j2 NVCC=cutrace-nvcc"
if CUTRACE_MODE=traced make -C "$p" -j2 NVCC="$wrapper" BUILD=traced >"$work/traced.log" 2>&1; then
  pass "Multifile.MakeTracedBuildSucceeds"
  check "Multifile.MakeTracedHasATwinForEveryAnnotatedKernel" has_every_twin "$p/traced/multifile"
  check "Multifile.MakeTracedLinksTheRuntime" \
    has_symbol "$p/traced/multifile" 'cutrace::DeviceBuffer::allocate'
  check "Multifile.HeaderTemplateGetsATracedCopy" \
    grep -q 'block_max_cutrace_traced' "$p/traced/main.o.cutrace/main.traced.headers/tiles.cuh"
  check "Multifile.LibraryHeaderOnSystemPathIsNotCopied" \
    test ! -e "$p/traced/main.o.cutrace/main.traced.headers/third_party"
  check "Multifile.DependencyFileNamesTheHeaderNotItsCopy" \
    bash -c "grep -q '$p/tiles.cuh' '$p/traced/main.d' && ! grep -q 'traced.headers' '$p/traced/main.d'"
  check "Multifile.UntouchedTreeRebuildsNothing" \
    bash -c "CUTRACE_MODE=traced make -C '$p' -q NVCC='$wrapper' BUILD=traced"
  sleep 1
  touch "$p/tiles.cuh"
  CUTRACE_MODE=traced make -C "$p" -j2 NVCC="$wrapper" BUILD=traced >"$work/rebuild.log" 2>&1
  check "Multifile.TouchedAnnotatedHeaderRebuildsItsIncluderOnly" \
    bash -c "grep -q -- '-c main.cu' '$work/rebuild.log' && ! grep -q -- '-c kernels.cu' '$work/rebuild.log'"
  touch "$p/kernels.h"
  CUTRACE_MODE=traced make -C "$p" -j2 NVCC="$wrapper" BUILD=traced >"$work/rebuild.log" 2>&1
  check "Multifile.TouchedDeclarationHeaderRebuildsBothObjects" \
    bash -c "grep -q -- '-c main.cu' '$work/rebuild.log' && grep -q -- '-c kernels.cu' '$work/rebuild.log'"
else
  fail "Multifile.MakeTracedBuildSucceeds"
  cat "$work/traced.log"
fi

echo "--- strip: CUTRACE_MODE=strip make -j2 NVCC=cutrace-nvcc"
if CUTRACE_MODE=strip make -C "$p" -j2 NVCC="$wrapper" BUILD=strip strip/multifile cubins \
  >"$work/strip.log" 2>&1; then
  pass "Multifile.MakeStripBuildSucceeds"
  check "Multifile.MakeStripLinksNoRuntime" bash -c "! nm -C '$p/strip/multifile' | grep -q 'cutrace::'"
  if plain_cubins "$tool" "$nvcc" "$work/plain"; then
    for f in kernels main; do
      check "Multifile.MakeStripCubinTextEqualsNeverAnnotated ($f.cu)" \
        same_text "$work/plain/build/$f.cubin" "$p/strip/$f.cubin"
    done
  else
    fail "Multifile.NeverAnnotatedCopyBuilds"
  fi
else
  fail "Multifile.MakeStripBuildSucceeds"
  cat "$work/strip.log"
fi

if ((failures)); then
  echo "multifile with make: $failures failure(s)"
  exit 1
fi
echo "multifile with make: all passed"
