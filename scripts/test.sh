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
stage configure cmake -S . -B build -G Ninja -DCUTRACE_BUILD_TESTS=ON
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
