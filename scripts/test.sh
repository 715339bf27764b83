#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds everything, runs ctest, then the sanitizer
# stage (an ASan+UBSan build running the unit and CLI error-path tests, and a short run of every
# fuzz target; docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCUTRACE_BUILD_TESTS=ON >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j 2 "$@"
bash scripts/sanitize.sh
