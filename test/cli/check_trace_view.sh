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
# The command line (tool/trace-view/command_line.cpp, CLI11): each command has its own --help on
# stdout with status 0, and each says a bad argument in one line, status 2.
for cmd in "" analyze diff list; do
  "$tv" $cmd --help >"$work/o" 2>"$work/e"; s=$?
  if [[ $s != 0 || -s $work/e || $(head -1 "$work/o") != "usage: trace-view ${cmd:+$cmd }"* ]]; then
    echo "FAIL TraceView.EachCommandHasItsHelp (${cmd:-view}): status $s, first line: $(head -1 "$work/o")"
    fail=1
  else
    echo "ok   TraceView.EachCommandHasItsHelp (${cmd:-view})"
  fi
done
"$tv" "$fixture" --bogus >/dev/null 2>"$work/e"; s=$?
expect "TraceView.UnknownOptionIsAUsageError" 2 "trace-view: error: unknown option '--bogus' (see --help)" $s "$work/e"
for cmd in analyze diff list; do
  "$tv" $cmd "$fixture" --bogus >/dev/null 2>"$work/e"; s=$?
  expect "TraceView.UnknownOptionOfASubcommandNamesIt ($cmd)" 2 "trace-view: error: $cmd: unknown option '--bogus' (see --help)" $s "$work/e"
done
"$tv" "$fixture" --launch >/dev/null 2>"$work/e"; s=$?
expect "TraceView.OptionWithoutItsValueIsAUsageError" 2 "trace-view: error: --launch needs a value (see --help)" $s "$work/e"
"$tv" analyze "$fixture" --top >/dev/null 2>"$work/e"; s=$?
expect "TraceView.OptionWithoutItsValueIsAUsageError (analyze)" 2 "trace-view: error: --top needs a value (see --help)" $s "$work/e"
"$tv" "$fixture" --json "$work/a.json" --json "$work/b.json" >/dev/null 2>"$work/e"; s=$?
expect "TraceView.OutputNamedTwiceByOneOptionIsAUsageError" 2 "trace-view: error: --json is given more than once (see --help)" $s "$work/e"
[[ ! -e $work/a.json && ! -e $work/b.json ]] || { echo "FAIL TraceView.OutputNamedTwiceByOneOptionIsAUsageError: wrote a file"; fail=1; }
"$tv" "$fixture" --launch=x >/dev/null 2>"$work/e"; s=$?
expect "TraceView.OptionEqualsValueIsChecked" 2 "trace-view: error: --launch wants a launch sequence number, got 'x' (see --help)" $s "$work/e"
"$tv" diff "$fixture" "$fixture" --noise-from "$fixture" --top 3 >/dev/null 2>"$work/e"; s=$?
expect "TraceView.NoiseFromTakesTwoFiles" 2 "trace-view: error: --noise-from needs two files (two traces of one unchanged build) (see --help)" $s "$work/e"
# A subcommand is the first argument only; after it, and after --, a word is a file.
"$tv" "$fixture" list >/dev/null 2>"$work/e"; s=$?
expect "TraceView.SubcommandNameAfterAFileIsAFile" 2 "trace-view: error: cannot read 'list': No such file or directory" $s "$work/e"
cp "$fixture" "$work/-dash.ctrace"
(cd "$work" && "$tv" --summary -- -dash.ctrace) >"$work/o" 2>"$work/e"; s=$?
if [[ $s != 0 || -s $work/e || ! -s $work/o ]]; then
  echo "FAIL TraceView.DoubleDashEndsTheOptions: status $s, stderr: $(cat "$work/e")"; fail=1
else
  echo "ok   TraceView.DoubleDashEndsTheOptions"
fi
exit $fail
