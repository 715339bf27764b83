#!/usr/bin/env bash
# trace-rewrite --explain end to end: stage lines on stderr (never stdout), no escape codes off a
# terminal or with NO_COLOR, colour on a terminal, the environment switches, a partial report
# after a failure, run folders that never overwrite, and +/- totals equal to `diff`.
# Usage: test/explain/check_cli.sh TRACE_REWRITE [WORK_DIR]      Exit: 0 pass, 1 fail.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rewrite=$(realpath -m "${1:?usage: check_cli.sh TRACE_REWRITE [WORK_DIR]}")
work=$(realpath -m "${2:-$(mktemp -d)}")
inputs=$root/test/inputs
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
has() { grep -qF -- "$2" "$1"; }
esc=$'\033'

# 1. strip: the parse passes are skipped (strip is lexical); stdout is exactly the plain strip.
"$rewrite" "$inputs/traced/two_kernels.cu" >plain.cu 2>/dev/null
"$rewrite" --explain=terminal "$inputs/traced/two_kernels.cu" >out.cu 2>err.txt
cmp -s plain.cu out.cu && pass "strip: stdout unchanged by --explain" || fail "strip: stdout differs"
for line in "completed collect annotations" "skipped   parse host pass" \
            "skipped   parse device pass" "completed write output" "function scale  +0 -1"; do
  has err.txt "$line" || fail "strip: no '$line' on stderr"
done
grep -q "$esc" err.txt && fail "strip: escape codes on a non-terminal" || pass "strip: stages, no colour off a TTY"

# 2. a terminal: colour by default, none with NO_COLOR (script(1) gives the run a pty).
if command -v script >/dev/null; then
  script -qec "$rewrite --explain=terminal $inputs/traced/two_kernels.cu -o tty.cu" tty.txt >/dev/null
  grep -q "$esc\[" tty.txt && pass "tty: coloured" || fail "tty: no colour on a terminal"
  NO_COLOR=1 script -qec "$rewrite --explain=terminal $inputs/traced/two_kernels.cu -o tty2.cu" \
    tty2.txt >/dev/null
  grep -q "$esc\[" tty2.txt && fail "tty: colour despite NO_COLOR" || pass "tty: NO_COLOR honoured"
else
  echo "note: script(1) absent, terminal colour not checked"
fi

# 3. traced: every stage completes or says why not; totals equal diff's counts.
"$rewrite" --traced --explain=terminal "$inputs/traced/two_kernels.cu" -o traced.cu 2>traced.txt ||
  fail "traced: run failed"
removed=$(diff "$inputs/traced/two_kernels.cu" traced.cu | grep -c '^<')
added=$(diff "$inputs/traced/two_kernels.cu" traced.cu | grep -c '^>')
has traced.txt "+$added -$removed lines in the file" &&
  pass "traced: +$added -$removed as diff counts" || fail "traced: totals differ from diff (+$added -$removed)"
for line in "completed parse host pass" "completed plan edits" "completed write map" "kernel scale" \
            "kernel shift" "launch site scale<<<>>>"; do
  has traced.txt "$line" || fail "traced: no '$line'"
done
grep -q "kernel untouched" traced.txt && fail "traced: an unannotated kernel is reported"

# 4. a failing file: exit 1, report up to the failing stage with the error, later stages skipped.
CUTRACE_EXPLAIN=both CUTRACE_EXPLAIN_DIR=$work/envdir \
  "$rewrite" --traced "$inputs/errors/payload_increment.cu" -o bad.cu 2>bad.txt
[[ $? -eq 1 ]] || fail "failure: exit status not 1"
[[ -e bad.cu ]] && fail "failure: output written"
has bad.txt "failed    check rules" || fail "failure: no failed stage line"
has bad.txt "not reached: stage 'check rules' failed" || fail "failure: later stages not marked"
html=$work/envdir/latest/payload_increment.cu.html
if [[ -s $html ]] && grep -q "stage failed" "$html" && grep -q "payload of TRACE_RECORD has side effects" "$html"
then pass "failure: partial HTML report with the error (via CUTRACE_EXPLAIN/_DIR)"
else fail "failure: no partial HTML report at $html"; fi

# 5. runs never overwrite; latest follows the newest.
for i in 1 2; do
  "$rewrite" --explain=html --explain-dir runs "$inputs/traced/two_kernels.cu" -o s$i.cu 2>where$i.txt
done
n=$(find runs -maxdepth 1 -name 'run-*' -type d | wc -l)
[[ $n -eq 2 ]] && pass "two runs, two folders" || fail "expected 2 run folders, found $n"
second=$(sed -n 's/.*explain report: \(.*\)/\1/p' where2.txt)
[[ -n $second && "$(realpath runs/latest/two_kernels.cu.html)" == "$(realpath "$second")" ]] &&
  pass "latest is the newest run" || fail "latest does not point at $second"

# 6. verify-strip reports too; a bad --explain value is a usage error.
"$rewrite" --verify-strip --explain=terminal "$inputs/traced/two_kernels.cu" 2>verify.txt ||
  fail "verify-strip failed"
has verify.txt "skipped   write output" && has verify.txt "completed parse device pass" &&
  pass "verify-strip: stages" || fail "verify-strip: stage lines missing"
"$rewrite" --explain=loud "$inputs/traced/two_kernels.cu" >/dev/null 2>usage.txt
[[ $? -eq 2 ]] && pass "bad --explain value: exit 2" || fail "bad --explain value accepted"

[[ $failures -eq 0 ]] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
