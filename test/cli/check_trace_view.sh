#!/usr/bin/env bash
# trace-view on bad inputs and failing outputs (docs/viewer.md, exit status): one line saying
# why, status 2 for an input that cannot be read, 1 for an output that cannot be written, never
# an abort; a large file that is not a trace is rejected from its first bytes.
# usage: check_trace_view.sh TRACE-VIEW FIXTURE.ctrace
set -uo pipefail
tv=$1 fixture=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
source "$(dirname "$0")/expect.sh"

"$tv" "$work" --summary >/dev/null 2>"$work/e"; s=$?
expect "TraceView.DirectoryIsAnInputErrorSayingWhy" 2 "trace-view: error: cannot read '$work': Is a directory" $s "$work/e"

"$tv" "$work/missing.ctrace" >/dev/null 2>"$work/e"; s=$?
expect "TraceView.MissingFileSaysWhy" 2 "trace-view: error: cannot read '$work/missing.ctrace': No such file or directory" $s "$work/e"

truncate -s 2G "$work/big.bin" # sparse
/usr/bin/time -f "%M" -o "$work/rss" "$tv" "$work/big.bin" >/dev/null 2>"$work/e"; s=$?
expect "TraceView.LargeNonTraceIsRejectedFromItsMagic" 2 "trace-view: error: $work/big.bin: not a .ctrace file (bad magic)" $s "$work/e"
if (($(tail -1 "$work/rss") > 100000)); then
  echo "FAIL TraceView.LargeNonTraceIsRejectedFromItsMagic: peak RSS $(tail -1 "$work/rss") KB"; fail=1
fi

"$tv" "$fixture" --summary >/dev/full 2>"$work/e"; s=$?
expect "TraceView.SummaryToAFullDiskIsAnOutputError" 1 "trace-view: error: cannot write to stdout: No space left on device" $s "$work/e"

: > "$work/plain"
"$tv" "$fixture" --html "$work/plain/sub/t.html" >/dev/null 2>"$work/e"; s=$?
if [[ $s != 1 || $(wc -l < "$work/e") != 1 || $(cat "$work/e") != "trace-view: error: "*"$work/plain/sub"* ||
      -n $(find "$work/plain" -newer "$work/e" 2>/dev/null) || ! -f "$work/plain" || -s "$work/plain" ]]; then
  echo "FAIL TraceView.UnwritableOutputIsAnOutputErrorAndWritesNothing: status $s, stderr: $(cat "$work/e")"
  fail=1
else
  echo "ok   TraceView.UnwritableOutputIsAnOutputErrorAndWritesNothing"
fi
# An output that cannot be written is named as the user gave it, with the reason (never a
# temporary file's name).
for opt in --html --json --perfetto --perfetto-json --sqlite; do
  "$tv" "$fixture" $opt "$work/plain/out" >/dev/null 2>"$work/e"; s=$?
  expect "TraceView.UnwritableOutputNamesThePathGivenAndWhy ($opt)" 1 \
    "trace-view: error: cannot write '$work/plain/out': cannot create folder '$work/plain': Not a directory" $s "$work/e"
done
exit $fail
