#!/usr/bin/env bash
# The package in the build tree: a project configured with CMAKE_PREFIX_PATH=<cutrace build dir>
# (no install) finds cutrace, calls cutrace_instrument() and builds traced and stripped
# (docs/cmake.md, "From the build tree"). No GPU needed: nothing is run.
# usage: build_tree.sh <cutrace build dir>     needs cmake >= 3.25, ninja, nvcc (CUDACXX)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir build-tree) || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for traced in ON OFF; do
  dir=$work/app-$traced
  if ! cmake -S "$repo/test/package/instrument_project" -B "$dir" -G Ninja \
    -DCMAKE_PREFIX_PATH="$build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DAPP_TRACED=$traced >"$work/configure.log" 2>&1; then
    fail "TRACED $traced: configure against the build tree failed"; cat "$work/configure.log"
    continue
  fi
  grep -q "cutrace_DIR:PATH=$build\$" "$dir/CMakeCache.txt" &&
    pass "TRACED $traced: find_package(cutrace) took the build tree's package" ||
    fail "TRACED $traced: cutrace_DIR is $(grep cutrace_DIR "$dir/CMakeCache.txt")"
  if ! ninja -C "$dir" >"$work/build.log" 2>&1; then
    fail "TRACED $traced: the project did not build"; cat "$work/build.log"
    continue
  fi
  expected=$([[ $traced == ON ]] && echo traced || echo plain)
  grep -q "cutrace build: $expected" "$dir/app" &&
    pass "TRACED $traced: built, host.cpp saw the $expected build" ||
    fail "TRACED $traced: host.cpp did not build the '$expected' branch"
  nm -C "$dir/app" >"$work/nm.txt"
  if [[ $traced == ON ]]; then
    grep -q "fill_cutrace_traced" "$work/nm.txt" && grep -q "cutrace::registerTwin" "$work/nm.txt" &&
      pass "TRACED ON: the twin is built and the build tree's runtime is linked" ||
      fail "TRACED ON: no twin or no runtime in app"
    grep -q "$build/bin/trace-rewrite --traced" <(ninja -C "$dir" -t commands app) &&
      pass "TRACED ON: the build tree's trace-rewrite rewrites the sources" ||
      fail "TRACED ON: not rewritten by $build/bin/trace-rewrite"
  else
    ! grep -q "_cutrace_traced" "$work/nm.txt" && pass "TRACED OFF: no twin" ||
      fail "TRACED OFF: a twin in the stripped build"
  fi
done
exit $((failures > 0))
