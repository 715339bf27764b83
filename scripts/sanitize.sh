#!/usr/bin/env bash
# The sanitizer stage of CI (docs/reliability.md): one clang-19 build with ASan and UBSan (every
# UB report fatal) and the fuzz targets, then the unit and CLI tests under it, then a short run of
# each fuzz target. `scripts/test.sh` calls it after the main suite.
#   scripts/sanitize.sh [FUZZ_SECONDS] [TRACED_SECONDS]     defaults: 20 60
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-san}
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCUTRACE_SANITIZE=ON -DCUTRACE_BUILD_FUZZERS=ON -DCUTRACE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target runtime_tests rewriter_tests strip_corpus_tests \
  traced_golden_tests trace-rewrite trace-view fuzz_strip fuzz_decode_map fuzz_ctrace fuzz_traced

# The unit tests and every CLI test except those whose work is nvcc's (compiling goldens, the
# zero-cost cubins, the package build): nvcc is not instrumented, so they would check nothing
# more. Browser and benchmark tests are left to the main stage for time.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j 2 -L 'fast|cli' -E 'CompilesWithNvcc|capture_links'

BUILD_DIR=$build bash scripts/fuzz.sh "${1:-20}" strip decode_map ctrace
BUILD_DIR=$build bash scripts/fuzz.sh "${2:-60}" traced
