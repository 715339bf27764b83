#!/usr/bin/env bash
# examples/multifile through find_package(cutrace) + cutrace_instrument() (docs/guide.md, "Your
# real project"): TRACED ON builds and links with a twin for every annotated kernel, TRACED OFF
# gives the never-annotated project's machine code (.text of each source's sm_90 cubin). No GPU.
#
# usage: check_cmake.sh <cutrace build dir> <nvcc>
set -uo pipefail
build=$(realpath "$1")
nvcc=$2
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir multifile-cmake) || exit 1
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1; then
  fail "Multifile.PackageInstalls"
  cat "$work/install.log"
  exit 1
fi
configure_and_build() { # <build dir> <TRACED> [cmake args...]
  local dir=$1 traced=$2; shift 2
  cmake -S "$example" -B "$dir" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCUTRACE_EXAMPLES_TRACED="$traced" "$@" >"$dir.log" 2>&1 && ninja -C "$dir" -j2 >>"$dir.log" 2>&1
}

echo "--- cutrace_instrument(multifile), TRACED ON"
on=$work/on
if configure_and_build "$on" ON; then
  pass "Multifile.CMakeTracedBuildSucceeds"
  check "Multifile.CMakeTracedHasATwinForEveryAnnotatedKernel" has_every_twin "$on/multifile"
  check "Multifile.CMakeTracedLinksTheRuntime" \
    has_symbol "$on/multifile" 'cutrace::DeviceBuffer::allocate'
  check "Multifile.CMakeTracedCopiesTheTemplateHeaderPerSource" \
    grep -q 'block_max_cutrace_traced' "$on/cutrace/multifile/main.traced.headers/tiles.cuh"
else
  fail "Multifile.CMakeTracedBuildSucceeds"
  cat "$on.log"
fi

echo "--- cutrace_instrument(multifile), TRACED OFF"
off=$work/off
mkdir -p "$work/keep"
# nvcc's intermediate files are what this build is for: a compile read back from ccache (the
# tests' launcher, test/CMakeLists.txt) would leave none.
if CCACHE_DISABLE=1 configure_and_build "$off" OFF "-DCMAKE_CUDA_FLAGS=--keep --keep-dir=$work/keep"; then
  pass "Multifile.CMakeStripBuildSucceeds"
  check "Multifile.CMakeStripLinksNoRuntime" bash -c "! nm -C '$off/multifile' | grep -q 'cutrace::'"
  if plain_cubins "$build/bin/trace-rewrite" "$nvcc" "$work/plain"; then
    for f in kernels main; do
      check "Multifile.CMakeStripCubinTextEqualsNeverAnnotated ($f.cu)" \
        same_text "$work/plain/build/$f.cubin" "$work/keep/$f.sm_90.cubin"
    done
  else
    fail "Multifile.NeverAnnotatedCopyBuilds"
  fi
else
  fail "Multifile.CMakeStripBuildSucceeds"
  cat "$off.log"
fi

if ((failures)); then
  echo "multifile with CMake: $failures failure(s)"
  exit 1
fi
echo "multifile with CMake: all passed"
