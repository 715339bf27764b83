#!/usr/bin/env bash
# The long run of the strip oracle (docs/reliability.md, "The strip oracle"): COUNT generated
# cases of seed SEED and every annotated file of the repository, through strip, --verify-strip,
# --traced and nvcc. Prints the counts; exits 1 on any failure, whose inputs are saved in
# $WORK/failures (default build/oracle-long/failures).
#   scripts/oracle.sh [SEED] [COUNT] [JOBS]      defaults: long 3000 2
# trace-rewrite is taken from $BUILD_DIR (default build); extra options go through $ORACLE_ARGS
# (e.g. ORACLE_ARGS=--skip-known-open).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
work=${WORK:-$build/oracle-long}
cmake --build "$build" --target trace-rewrite >/dev/null
# shellcheck disable=SC2086 # ORACLE_ARGS is a list of options
exec python3 test/oracle/oracle.py --rewrite "$build/bin/trace-rewrite" --seed "${1:-long}" \
  --count "${2:-3000}" --jobs "${3:-2}" --batch 50 --corpus -1 --work "$work" ${ORACLE_ARGS:-}
