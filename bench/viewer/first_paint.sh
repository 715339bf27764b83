#!/usr/bin/env bash
# The viewer's first-paint budgets, asserted (docs/viewer.md, "Large traces"): the browser checks
# of the test suite print these figures without failing on them, since a busy machine would; run
# this on a quiet machine to hold the pages to 2 s.
#   bench/viewer/first_paint.sh [BUILD_DIR] [WORK_DIR]      (budgets: MAX_*_FIRST_PAINT_MS)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export MAX_FIRST_PAINT_MS=${MAX_FIRST_PAINT_MS:-2000}
export MAX_BULK_FIRST_PAINT_MS=${MAX_BULK_FIRST_PAINT_MS:-2000}
export CHECKS=${CHECKS:-bulk run slices}
exec bash "$here/../../test/browser/check.sh" "$@"
