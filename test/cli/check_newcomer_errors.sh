#!/usr/bin/env bash
# The mistakes a newcomer makes first get messages that say what to do (docs/annotations.md,
# "Diagnostics"): a forgotten include, a misspelt annotation, every error of a file in one run,
# and no notes about code Clang 19 rejects and nvcc accepts unless asked for (-v).
# usage: check_newcomer_errors.sh <trace-rewrite>
set -uo pipefail
tool=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$work"

cat > no_include.cu <<'CU'
__global__ void k(int *x, int n) {
  TRACE_GROUP("g", 0);
  for (int i = 0; i < n; ++i) {
    TRACE_RANGE("step", "main", i);
    TRACE_RECORD("r", i);
  }
}
CU
"$tool" --traced no_include.cu -o out.cu 2>err.txt
[[ $(grep -c "note: the annotations are declared in <cutrace/trace.h>: add \`#include <cutrace/trace.h>\` to this file" err.txt) == 1 ]] &&
  pass "Diagnostics.ForgottenIncludeSaysAddTheIncludeOnce" ||
  { fail "Diagnostics.ForgottenIncludeSaysAddTheIncludeOnce"; cat err.txt; }

cat > typo.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *x) {
  TRACE_RANGEE("step");
  x[0] = 1;
}
CU
"$tool" typo.cu >stripped.cu 2>err.txt
status=$?
[[ $status == 0 ]] && grep -q "^typo.cu:3:3: warning: 'TRACE_RANGEE' is not a cutrace annotation, so it is left in place; did you mean 'TRACE_RANGE'?" err.txt &&
  grep -q "TRACE_RANGEE" stripped.cu && pass "Diagnostics.MisspeltAnnotationSaysDidYouMean" ||
  { fail "Diagnostics.MisspeltAnnotationSaysDidYouMean (status $status)"; cat err.txt; }
"$tool" --traced typo.cu -o out.cu 2>err.txt
[[ $(grep -c "did you mean 'TRACE_RANGE'" err.txt) == 1 ]] &&
  pass "Diagnostics.MisspeltAnnotationIsSaidOnceByTraced" ||
  { fail "Diagnostics.MisspeltAnnotationIsSaidOnceByTraced"; cat err.txt; }
# A file's own TRACE_ macro is its own business; correct files strip with no message.
printf '#define TRACE_RANGEE(x)\n__global__ void k() { TRACE_RANGEE(1); }\n' >own.cu
"$tool" own.cu >/dev/null 2>err.txt && [[ ! -s err.txt ]] &&
  pass "Diagnostics.FileOwnTraceMacroIsNoTypo" || { fail "Diagnostics.FileOwnTraceMacroIsNoTypo"; cat err.txt; }

cat > five.cu <<'CU'
#include <cutrace/trace.h>
#define MINE TRACE_RECORD("m", 1)
__global__ void k(int *x, int n) {
  auto t = TRACE_RANGE_START("s");
  int y = t;
  MINE;
  TRACE_RECORD("b", n++);
  TRACE_RANGE("a", lane);
  TRACE_RECORD("c", 1, 2, 3, 4);
  TRACE_RANGE_END(t);
}
CU
every_error_shown() {
  [[ $(grep -c ": error: " err.txt) == 5 ]] || return 1
  for where in 5:11 6:3 7:21 8:20 9:3; do grep -q "^five.cu:$where: error: " err.txt || return 1; done
}
"$tool" --traced five.cu -o five_out.cu 2>err.txt
status=$?
[[ $status == 1 && ! -e five_out.cu ]] && every_error_shown &&
  pass "Diagnostics.TracedReportsEveryErrorOfTheFileInOneRun" ||
  { fail "Diagnostics.TracedReportsEveryErrorOfTheFileInOneRun (status $status)"; cat err.txt; }

cat > pipeline.cu <<'CU'
#include <cutrace/trace.h>
#include <cuda/pipeline>
__global__ void k(float *x) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  TRACE_RECORD("a", 1);
  x[0] = 1;
}
CU
"$tool" --traced pipeline.cu -o out.cu 2>err.txt && [[ ! -s err.txt ]] &&
  pass "Diagnostics.KnownBenignClangNotesAreQuietByDefault" ||
  { fail "Diagnostics.KnownBenignClangNotesAreQuietByDefault"; cat err.txt; }
"$tool" -v --traced pipeline.cu -o out2.cu 2>err.txt &&
  grep -q "pipeline.cu:4:71: note: Clang 19 rejects this and nvcc accepts it" err.txt &&
  pass "Diagnostics.VerboseShowsKnownBenignNotes" ||
  { fail "Diagnostics.VerboseShowsKnownBenignNotes"; cat err.txt; }

exit $((failures > 0))
