#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds everything, runs ctest, then the sanitizer
# stage (an ASan+UBSan build running the unit and CLI error-path tests, and a short run of every
# fuzz target; docs/reliability.md). Every stage runs even when one before it failed (a build
# failure stops only what needs that build); the failures are listed at the end, with the 15
# slowest tests of the run. Arguments go to ctest.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=()
stage() { # NAME COMMAND...: runs a stage, timed, and remembers a failure
  local name=$1 t0=$SECONDS
  shift
  echo "== $name"
  "$@" || failed+=("$name (exit $?)")
  echo "== $name: $((SECONDS - t0)) s"
}
stage "install packages" bash scripts/install-deps.sh
# ccache, when installed, for both builds (CMake takes CMAKE_<LANG>_COMPILER_LAUNCHER from the
# environment) and for the tests' nvcc compiles (CUTRACE_TEST_NVCC_LAUNCHER in test/CMakeLists.txt:
# the reviewed goldens, the seeded mutants, and every build an nvcc-labelled or package test runs,
# through make, cutrace-nvcc or CMake, -cubin and -ptx compiles included; each such test builds in
# a scratch folder named the same from run to run, test/support/scratch.sh). A first run on a
# machine fills the cache, and a compile that several tests run alike is done once; later runs, a
# fresh clone included, compile only what changed.
# CUTRACE_CCACHE=0: no cache.
test_nvcc_launcher=()
if [[ ${CUTRACE_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  for lang in C CXX; do
    var=CMAKE_${lang}_COMPILER_LAUNCHER
    [[ -n ${!var:-} ]] || export "$var=ccache"
  done
  test_nvcc_launcher=(-DCUTRACE_TEST_NVCC_LAUNCHER=ccache)
  # Paths inside the clone hashed relative to it, and the build folder left out of the hash that
  # -g (RelWithDebInfo, the sanitizer build's line tables) would put it in: a fresh clone
  # elsewhere hits the same entries. An object read back keeps the debug info's folder of the
  # clone that first built it.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
stage configure cmake -S . -B build -G Ninja -DCUTRACE_BUILD_TESTS=ON "${test_nvcc_launcher[@]}"
if stage build cmake --build build && ((${#failed[@]} == 0)); then
  stage ctest ctest --test-dir build --output-on-failure -j 2 --output-junit ctest-junit.xml "$@"
  python3 scripts/slowest_tests.py build/ctest-junit.xml 15 || true
else
  failed+=("ctest (not run: a stage before it failed)")
fi
stage "sanitizer stage" bash scripts/sanitize.sh
if ((${#failed[@]})); then
  echo "FAILED stages:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "all stages passed"
