#!/usr/bin/env bash
# cutrace-nvcc as CMAKE_CUDA_COMPILER_LAUNCHER (docs/cli.md, "cutrace-nvcc"): the two-file project
# of test/wrapper/project configured with Ninja, traced and stripped. No GPU needed.
#
# usage: check_cmake_launcher.sh <cutrace-nvcc> <nvcc>
set -uo pipefail

wrapper=$(realpath "$1")
nvcc=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir launcher) || exit 1
trap 'rm -rf "$work"' EXIT
source "$here/../support/checks.sh"
# A copy of the project, so touching its header leaves the checkout alone.
mkdir -p "$work/src"
cp -r "$here/project" "$here/cmake_project" "$work/src/"

build() { # <mode> <build dir> [cmake args...]
  local mode=$1 dir=$2; shift 2
  CUTRACE_MODE=$mode cmake -S "$work/src/cmake_project" -B "$dir" -G Ninja \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER_LAUNCHER="$wrapper" "$@" >"$dir.log" 2>&1 &&
    CUTRACE_MODE=$mode ninja -C "$dir" >>"$dir.log" 2>&1
}

echo "--- traced"
t=$work/traced
if build traced "$t" -DCMAKE_CUDA_STANDARD_LIBRARIES="$("$wrapper" --cutrace-libs)"; then
  pass "Launcher.TracedCMakeBuildSucceeds"
  check "Launcher.TracedKernelGetsItsTwin" has_symbol "$t/app" 'row_sum_cutrace_traced'
  check "Launcher.RuntimeLinkedThroughCutraceLibs" has_symbol "$t/app" 'cutrace::DeviceBuffer::allocate'
  ninja -C "$t" -t deps >"$work/deps.txt" 2>&1
  check "Launcher.NinjaDepsNameTheOriginalSource" \
    grep -q "^    $work/src/project/kernels.cu\$" "$work/deps.txt"
  check "Launcher.NinjaDepsNameNoGeneratedFile" bash -c "! grep -q '\.cutrace/' '$work/deps.txt'"
  sleep 1
  touch "$work/src/project/kernels.h"
  CUTRACE_MODE=traced ninja -C "$t" >"$work/rebuild.log" 2>&1
  check "Launcher.TouchedHeaderRebuildsBothObjects" \
    bash -c "grep -q 'main.cu.o' '$work/rebuild.log' && grep -q 'kernels.cu.o' '$work/rebuild.log'"
else
  fail "Launcher.TracedCMakeBuildSucceeds"
  cat "$t.log"
fi

echo "--- strip"
s=$work/strip
if build strip "$s"; then
  pass "Launcher.StripCMakeBuildSucceeds"
  check "Launcher.StripLinksNoRuntime" bash -c "! nm -C '$s/app' | grep -q 'cutrace::'"
else
  fail "Launcher.StripCMakeBuildSucceeds"
  cat "$s.log"
fi

if ((failures)); then
  echo "cutrace-nvcc as a CMake launcher: $failures failure(s)"
  exit 1
fi
echo "cutrace-nvcc as a CMake launcher: all passed"
