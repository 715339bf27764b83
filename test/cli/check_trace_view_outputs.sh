#!/usr/bin/env bash
# trace-view writes its outputs as trace-rewrite does (docs/cli.md, "Outputs"): refused before any
# work when an output is an input (also through a symbolic or hard link), is named twice, or is a
# symbolic link to nothing or to itself; a FIFO, a device or a link to /proc/self/fd/1 is written
# to, never replaced; a link to a regular file stays a link; long names get short temporary
# names; a stream input is bounded. Each case states the status, the message and the files left
# (content, inode, link-ness). Special files are made in a temporary folder; the only system
# nodes touched are /dev/null, /dev/full and /dev/zero (read).
# usage: check_trace_view_outputs.sh TRACE-VIEW FIXTURE.ctrace
set -uo pipefail
tv=$(realpath "$1") fixture=$(realpath "$2")
source "$(dirname "$0")/expect.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
holds() { # holds NAME COMMAND...: a check on the files left
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
inode() { stat -c %i "$1"; }
cp "$fixture" in.ctrace
sum=$(cksum < in.ctrace)
ino=$(inode in.ctrace)
unchanged() { [[ $(cksum < in.ctrace) == "$sum" && $(inode in.ctrace) == "$ino" && -f in.ctrace && ! -L in.ctrace ]]; }

for opt in --json --html --perfetto --perfetto-json --sqlite; do
  "$tv" in.ctrace $opt in.ctrace >/dev/null 2>e; s=$?
  expect "TraceView.OutputThatIsTheInputIsRefused ($opt)" 2 \
    "trace-view: error: $opt 'in.ctrace' is an input file: it would be replaced (see --help)" $s e
  holds "TraceView.OutputThatIsTheInputLeavesItAsItWas ($opt)" unchanged
done
ln -s in.ctrace sym.ctrace
"$tv" in.ctrace --json sym.ctrace >/dev/null 2>e; s=$?
expect "TraceView.OutputThatIsTheInputThroughASymlinkIsRefused" 2 \
  "trace-view: error: --json 'sym.ctrace' is an input file ('in.ctrace' under another name): it would be replaced (see --help)" $s e
ln in.ctrace hard.ctrace
"$tv" in.ctrace --html hard.ctrace >/dev/null 2>e; s=$?
expect "TraceView.OutputThatIsTheInputThroughAHardLinkIsRefused" 2 \
  "trace-view: error: --html 'hard.ctrace' is an input file ('in.ctrace' under another name): it would be replaced (see --help)" $s e
"$tv" analyze in.ctrace --json hard.ctrace >/dev/null 2>e; s=$?
expect "TraceView.AnalyzeOutputThatIsTheInputIsRefused" 2 \
  "trace-view: error: --json 'hard.ctrace' is an input file ('in.ctrace' under another name): it would be replaced (see --help)" $s e
"$tv" diff in.ctrace in.ctrace --json in.ctrace >/dev/null 2>e; s=$?
expect "TraceView.DiffOutputThatIsAnInputIsRefused" 2 \
  "trace-view: error: --json 'in.ctrace' is an input file: it would be replaced (see --help)" $s e
holds "TraceView.RefusedOutputsLeaveTheInputAndItsLinks" bash -c \
  "[[ -L sym.ctrace && \$(stat -c %h in.ctrace) == 2 ]]"
rm hard.ctrace

"$tv" in.ctrace --html x --json x >/dev/null 2>e; s=$?
expect "TraceView.OutputNamedTwiceIsRefused" 2 \
  "trace-view: error: --json 'x' is named twice: --html and --json would write one file (see --help)" $s e
echo old > x.json
ln -s x.json xl.json
"$tv" in.ctrace --perfetto x.json --json xl.json >/dev/null 2>e; s=$?
expect "TraceView.OutputNamedTwiceThroughALinkIsRefused" 2 \
  "trace-view: error: --json 'xl.json' and 'x.json' are one file: --perfetto and --json would write one file (see --help)" $s e
holds "TraceView.RefusedRunsWriteNothing" bash -c '[[ ! -e x && $(cat x.json) == old && -L xl.json ]]'

ln -s nowhere dangling.json
"$tv" in.ctrace --json dangling.json >/dev/null 2>e; s=$?
expect "TraceView.OutputThatIsADanglingSymlinkIsRefused" 2 \
  "trace-view: error: --json 'dangling.json' is a symbolic link to a file that does not exist (see --help)" $s e
holds "TraceView.ADanglingSymlinkStaysALink" bash -c '[[ -L dangling.json && ! -e nowhere ]]'
ln -s loop.json loop.json
"$tv" in.ctrace --html loop.json >/dev/null 2>e; s=$?
expect "TraceView.OutputThatIsASelfLoopingSymlinkIsRefused" 2 \
  "trace-view: error: --html 'loop.json' is a symbolic link that never reaches a file (a loop) (see --help)" $s e
holds "TraceView.ASelfLoopingSymlinkStaysALink" test -L loop.json

"$tv" in.ctrace --json /dev/full >/dev/null 2>e; s=$?
expect "TraceView.AFullDeviceIsWrittenToAndItsErrorReported" 1 \
  "trace-view: error: cannot write '/dev/full': No space left on device" $s e
holds "TraceView.TheDeviceNodeStaysADevice" test -c /dev/full
"$tv" in.ctrace --json /dev/null >/dev/null 2>e; s=$?
expect "TraceView.ADeviceIsWrittenTo" 0 "trace-view: wrote /dev/null" $s e
holds "TraceView.DevNullStaysADevice" test -c /dev/null
mkfifo fifo.json
cat fifo.json > from_fifo.json &
reader=$!
"$tv" in.ctrace --json fifo.json >/dev/null 2>e; s=$?
wait $reader
expect "TraceView.AFifoIsWrittenTo" 0 "trace-view: wrote fifo.json" $s e
holds "TraceView.TheFifoStaysAFifoAndItsReaderGetsTheOutput" bash -c \
  '[[ -p fifo.json && $(head -c 1 from_fifo.json) == "{" ]]'
ln -s /proc/self/fd/1 stdout.json
"$tv" in.ctrace --json stdout.json >through_stdout.json 2>e; s=$?
expect "TraceView.ALinkToProcSelfFd1WritesToStdout" 0 "trace-view: wrote stdout.json" $s e
holds "TraceView.TheLinkToStdoutStaysALink" bash -c \
  '[[ -L stdout.json && $(head -c 1 through_stdout.json) == "{" ]]'
echo old > target.json
ln -s target.json link.json
"$tv" in.ctrace --json link.json >/dev/null 2>e; s=$?
expect "TraceView.ALinkToARegularFileIsWrittenThrough" 0 "trace-view: wrote link.json" $s e
holds "TraceView.TheLinkStaysALinkAndItsTargetIsReplaced" bash -c \
  '[[ -L link.json && $(readlink link.json) == target.json && $(head -c 1 target.json) == "{" ]]'
echo old > target.db
ln -s target.db link.db
"$tv" in.ctrace --sqlite link.db >/dev/null 2>e; s=$?
expect "TraceView.ASqliteOutputThatIsALinkIsWrittenThrough" 0 "trace-view: wrote link.db" $s e
holds "TraceView.TheSqliteLinkStaysALinkAndItsTargetIsTheDatabase" bash -c \
  '[[ -L link.db && $(readlink link.db) == target.db && $(head -c 15 target.db) == "SQLite format 3" ]]'

for n in 245 250 255; do
  name=$(printf 'n%.0s' $(seq $((n - 5)))).json
  "$tv" in.ctrace --json "$name" >/dev/null 2>e; s=$?
  expect "TraceView.AnOutputNameOf${n}BytesIsWritten" 0 "trace-view: wrote $name" $s e
  holds "TraceView.AnOutputNameOf${n}BytesHoldsTheOutput" bash -c "[[ \$(head -c 1 '$name') == '{' ]]"
  rm -f "$name"
done

"$tv" /dev/zero >/dev/null 2>e; s=$?
expect "TraceView.AnEndlessDeviceIsRejectedFromItsFirstBytes" 2 \
  "trace-view: error: /dev/zero: not a .ctrace file (bad magic)" $s e
expect_prefix() { # the message's start: where memory ran out depends on the machine
  if [[ $2 == "$4" && $(cat "$5") == "$3"* ]]; then echo "ok   $1"; else
    echo "FAIL $1: status $4, stderr: $(cat "$5")"; fail=1; fi
}
# AddressSanitizer reserves terabytes of address space at start, which `ulimit -v` forbids: the
# sanitizer stage (scripts/sanitize.sh sets ASAN_OPTIONS) leaves this check to the main stage.
if [[ -z ${ASAN_OPTIONS:-} ]]; then
  { head -c 16 in.ctrace; cat /dev/zero; } 2>/dev/null | (ulimit -v 1000000; "$tv" /dev/stdin >/dev/null 2>e); s=$?
  expect_prefix "TraceView.AnEndlessTraceStreamUnderAMemoryLimitIsAnErrorNotAnAbort" 2 \
    "trace-view: error: cannot read '/dev/stdin': out of memory after" $s e
else
  echo "skip TraceView.AnEndlessTraceStreamUnderAMemoryLimitIsAnErrorNotAnAbort (ASan: no ulimit -v)"
fi
# A trace written as it is made (--perfetto) that cannot be finished leaves nothing: here a file
# size limit of 8 KB (SIGXFSZ ignored: the write fails with EFBIG) stops it part way.
echo old > p.pftrace
(trap '' XFSZ; ulimit -f 8; "$tv" in.ctrace --perfetto p.pftrace --json pj.json >/dev/null 2>e); s=$?
expect "TraceView.AStreamedOutputThatCannotBeFinishedIsAnOutputError" 1 \
  "trace-view: error: cannot write 'p.pftrace': File too large" $s e
holds "TraceView.AStreamedOutputThatFailsLeavesThePreviousFileAndWritesNoOther" bash -c \
  '[[ $(cat p.pftrace) == old && ! -e pj.json ]]'
holds "TraceView.NoTemporaryFileIsLeft" test -z "$(find . -name '*.tmp-*')"
exit $fail
