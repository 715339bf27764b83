#!/usr/bin/env bash
# trace-rewrite's messages to a new user (issue: error messages): each case asserts the exit
# status, the message and what was (not) written.
# usage: check_messages.sh <trace-rewrite>
set -uo pipefail
tool=$(realpath "$1")
docs=$(realpath "$(dirname "$0")/../../docs/cli.md")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # check <rule> <command...>: the command must succeed
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
cd "$work"

cat >missing.cu <<'CU'
#include <cutrace/trace.h>
#include "config.h"
__global__ void k(int *p) {
  TRACE_RECORD("x", p[0]);
}
CU
"$tool" --traced missing.cu -o out/missing.traced.cu >out.txt 2>err.txt
status=$?
check "Messages.MissingHeaderExits3 ($status)" test $status -eq 3
check "Messages.MissingHeaderNamesTheHeader" grep -q "missing.cu:2:10: 'config.h' file not found" err.txt
check "Messages.MissingHeaderSuggestsDashPOrIncludeDirs" \
  grep -qF -- "-p <build dir> (its compile_commands.json) or the compile command after \`--\` (-- -I<dir>" err.txt
check "Messages.MissingHeaderWritesNothing" test ! -e out

cat >twice.cu <<'CU'
#include <cutrace/trace.h>
int g = (TRACE_RECORD("x"), 1);
__global__ void k(int *p) { p[0] = g; }
CU
"$tool" twice.cu -o twice.strip.cu >out.txt 2>err.txt
status=$?
check "Messages.StripProblemExits1 ($status)" test $status -eq 1
check "Messages.StripPrintsEachProblemOnce" \
  test "$(grep -c 'twice.cu:2:10: error: annotation must be a whole statement' err.txt)" -eq 1
check "Messages.StripProblemWritesNothing" test ! -e twice.strip.cu

cat >device.cu <<'CU'
#include <cutrace/trace.h>
__device__ void a(int *p) {
  TRACE_GROUP("producer", 0);
  p[0] = 1;
}
__device__ void b(int *p) {
  TRACE_GROUP("producer", 32);
  p[1] = 1;
}
__global__ void k(int *p) { a(p); b(p); }
CU
"$tool" --traced device.cu -o device.traced.cu >out.txt 2>err.txt
status=$?
check "Messages.CalleeGroupLeadsDifferExits1 ($status)" test $status -eq 1
check "Messages.CalleeGroupLeadsDifferSaysWhereTheFirstIs" grep -q \
  "device.cu:7:27: error: group 'producer' is declared with lead 0 at device.cu:3:3; every declaration of a name must name the same lead thread" err.txt
check "Messages.CalleeGroupLeadsDifferWritesNothing" \
  test ! -e device.traced.cu -a ! -e device.trace_map.h -a ! -e device.trace_map.json

cat >ok.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *p) {
  TRACE_RECORD("x", p[0]);
}
CU
"$tool" --traced ok.cu -o - >out.txt 2>err.txt
status=$?
check "Messages.TracedToStdoutExits0 ($status)" test $status -eq 0
check "Messages.TracedToStdoutSaysWhereTheMapWent" grep -qF \
  "note: the traced source went to stdout; its decode map was written to './ok.trace_map.h' and './ok.trace_map.json' (choose the place with --map)" err.txt
check "Messages.TracedToStdoutMapIsWhereItSaid" test -f ok.trace_map.h -a -f ok.trace_map.json
rm -f ok.trace_map.*
"$tool" --traced ok.cu -o - --map maps/ok.h >out.txt 2>err.txt
check "Messages.TracedToStdoutWithMapIsQuiet" bash -c "! grep -q note err.txt && test -f maps/ok.h"

# --help says how to give the compile command and each default; the defaults are the ones the tool
# uses and the ones docs/cli.md states.
"$tool" --help >help.txt 2>&1
check "Messages.HelpUsageShowsTheCompileCommandAfterDashDash" \
  grep -qF "USAGE: trace-rewrite [options] <file.cu>... [-- <compile command>]" help.txt
check "Messages.HelpStatesTheMaxEventsDefault" grep -qE -- "--max-events=.*\(default: 1024\)" help.txt
check "Messages.HelpStatesTheGpuArchDefault" grep -qE -- "--cuda-gpu-arch=.*\(default: sm_90\)" help.txt
check "Messages.HelpStatesTheClockDefault" grep -qE -- "--clock=.*\(default: clock64\)" help.txt
"$tool" --traced ok.cu -o defaults.traced.cu >out.txt 2>err.txt
check "Messages.MaxEventsAndClockDefaultsAreTheOnesHelpStates" python3 -c "if True:
  import json, sys
  k = json.load(open('defaults.trace_map.json'))['kernels'][0]
  sys.exit(0 if (k['max_events'], k['clock']) == (1024, 'clock64') else 1)"
check "Messages.CliDocSynopsisIsTheHelpUsage" grep -qxF \
  "trace-rewrite [options] <file.cu>... [-- <compile command>]" "$docs"
check "Messages.CliDocStatesTheSameDefaults" bash -c "grep -q 'default 1024' '$docs' && \
  grep -q 'default \`sm_90\`' '$docs'"

# A payload and a lane swapped: the error says which argument is wrong, a note gives the order
# (TRACE_RECORD and TRACE_RANGE order them differently).
cat >swapped.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *p) {
  TRACE_RECORD("x", "mma", p[0]);
  TRACE_RANGE("y", p[0], "mma");
}
CU
for mode in "" --traced --verify-strip; do
  "$tool" $mode swapped.cu -o swapped.out.cu >out.txt 2>err.txt
  [[ $mode == --verify-strip ]] && "$tool" $mode swapped.cu >out.txt 2>err.txt
  status=$?
  check "Messages.SwappedPayloadAndLaneExits1 (${mode:-strip}: $status)" test $status -eq 1
  check "Messages.SwappedRecordArgumentsNoteTheOrder (${mode:-strip})" grep -qF \
    "swapped.cu:3:28: note: the arguments of TRACE_RECORD are (name, payload, lane): the payload comes before the lane" err.txt
  check "Messages.SwappedRangeArgumentsNoteTheOrder (${mode:-strip})" grep -qF \
    "swapped.cu:4:20: note: the arguments of TRACE_RANGE are (name, lane, payload): the lane comes before the payload" err.txt
  check "Messages.SwappedArgumentsWriteNothing (${mode:-strip})" test ! -e swapped.out.cu
done

# One fault found by the lexical scan and by a pass (`i++`) is reported once by --verify-strip.
cat >inc.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *p, int i) {
  TRACE_RECORD("x", i++);
  p[0] = i;
}
CU
"$tool" --verify-strip inc.cu >out.txt 2>err.txt
status=$?
check "Messages.VerifyStripIncrementExits1 ($status)" test $status -eq 1
check "Messages.VerifyStripReportsOneFaultOnce" test "$(grep -c 'inc.cu:3:21: error:' err.txt)" -eq 1

exit $fail
