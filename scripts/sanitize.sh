#!/usr/bin/env bash
# The sanitizer stage of CI (docs/reliability.md): one clang-19 build with ASan and UBSan (every
# UB report fatal) and the fuzz targets, then the unit and CLI tests under it, then a short run of
# each fuzz target. `scripts/test.sh` calls it after the main suite.
#   scripts/sanitize.sh [FUZZ_SECONDS] [TRACED_SECONDS]     defaults: 20 30
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-san}
# -O1 with line tables: reports name the line, and the build stays within the CI time.
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" \
  -DCUTRACE_SANITIZE=ON -DCUTRACE_BUILD_FUZZERS=ON -DCUTRACE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target runtime_tests rewriter_tests trace-rewrite trace-view trace_view_tests \
  perfetto_rules_tests pftrace_rules_tests pftrace_to_json trace_view_diff_tests fuzz_strip \
  fuzz_decode_map fuzz_ctrace fuzz_traced output_names_probe

# The subset that fits the CI time (docs/reliability.md): every unit test of the rewriter and
# the runtime (scanner, strip, diff, explain, parses, decoder, exports, file reading and writing)
# and the CLI scripts that drive the tools through their error paths. Left to the main stage: the
# per-file corpus runs (two Clang parses per file, ~10x slower under ASan, and the same code the
# unit tests run), everything whose work is nvcc's, browser and benchmark tests, and the `sources`
# tests (ESLint, Node, CMake configure and file checks: no program of this build runs in them).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j 2 -L fast -LE sources -E capture_links
ctest --test-dir "$build" --output-on-failure -j 2 \
  -R '^(cli_file_handling|cli_hardening|trace_view_errors|explain_cli)$'

# traced first: the longest, beside the other three one after the other on the second core.
BUILD_DIR=$build bash scripts/fuzz.sh "${1:-20}" traced:"${2:-30}" strip decode_map ctrace
