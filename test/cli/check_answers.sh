#!/usr/bin/env bash
# Answers first (docs/analysis.md, "Answers first"): `analyze` opens with one answer per question,
# summarizes long per-row and per-SM tables unless --rows / --sms, says a degenerate histogram in
# words, gives --top 0 one meaning (all, as diff does); `trace-view list` names every launch by
# its sequence number. On the committed H200 fixtures.
# usage: check_answers.sh TRACE-VIEW DATA-DIR   (DATA-DIR: test/data/h200)
set -uo pipefail
tv=$1 data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
line() { # FILE N WANT: line N of FILE is WANT
  local got; got=$(sed -n "$2p" "$1")
  [[ $got == "$3" ]] || { echo "     line $2: '$got'"; echo "     want:   '$3'"; return 1; }
}
has() { grep -qF -- "$2" "$1" || { echo "     '$2' not in $1"; return 1; }; }
equal() { [[ $1 == "$2" ]] || { echo "     got '$1', want '$2'"; return 1; }; }

ws=$data/ws_gemm.ctrace waves=$data/waves/layernorm_full_waves.ctrace
"$tv" analyze "$ws" >"$work/ws"
check Analyze.OpensWithTheAnswers line "$work/ws" 4 "answers"
check Analyze.FirstAnswerIsTheBiggestHandoffWait line "$work/ws" 5 \
  "  hand-offs  consume waits for produce 81.2% of its rows' life (mean 1979.7 ns, p95 2421.1 ns per hand-off; 192 of 192 waited)"
check Analyze.AnswersNameTheMostAndLeastWorkingGroup has "$work/ws" \
  "  busy       most working producer 98.3% busy; least working consumer 98.1% busy (81.2% waiting on hand-offs, 17.0% working)"

"$tv" analyze "$waves" >"$work/waves"
check Analyze.AnswersOfAKernelWithoutHandoffsSayItInOneLine has "$work/waves" \
  "  hand-offs  no TRACE_DAG pair declared"
check Analyze.AnswersSayTheWaves has "$work/waves" \
  "  waves      2 waves: 264 CTAs on 132 SMs, at most 1 at once per SM (2.00 full waves)"
check Analyze.MoreThan16RowsAreSummarized has "$work/waves" \
  "  per row: 8448 rows; busy min 43.1%, median 70.6%, max 96.2%"
check Analyze.MoreThan16SmsAreSummarized has "$work/waves" \
  "  per SM: 132 SMs; CTAs per SM min 2, median 2, max 2;"
check Analyze.SummarizedOutputStaysShort test "$(wc -l <"$work/waves")" -lt 250
"$tv" analyze "$waves" --only busy --rows >"$work/rows"
check Analyze.RowsListsEveryRow equal "$(sed -n '/^  per row$/,/^$/p' "$work/rows" | grep -cE '^    [0-9]+ ')" 8448
"$tv" analyze "$waves" --only tail --sms >"$work/sms"
check Analyze.SmsListsEverySm equal "$(sed -n '/^  per SM$/,/^$/p' "$work/sms" | grep -cE '^    [0-9]+ +2 ')" 132

"$tv" analyze "$ws" --only histogram >"$work/hist"
check Analyze.AHistogramOfFewerSlicesThanBinsListsThem has "$work/hist" \
  "  epilogue: 12 slices (no more than 20 bins), ns: 31.8 31.8"
"$tv" analyze "$data/multifile/grid_sum.ctrace" --only histogram >"$work/one"
check Analyze.AHistogramOfOneValueSaysSo has "$work/one" "  total: 1 slice of 290.3 ns"

"$tv" analyze "$ws" --only outliers --top 0 >"$work/top0"
check Analyze.TopZeroShowsEverySlice line "$work/top0" 4 "slowest 396 slices"
"$tv" diff "$ws" "$ws" --top 0 >"$work/dtop0" 2>/dev/null
check Diff.TopZeroShowsEveryRow equal "$(grep -c '%  noise$' "$work/dtop0")" 7

run=$data/runs/loop_1000_default.ctrace
"$tv" list "$run" >"$work/list"
check List.NamesEveryLaunchOnce equal "$(grep -cE '^[0-9]+ ' "$work/list")" 24
check List.GivesSequenceKernelGridBlockGpuStreamStartDurationCompleteness line "$work/list" 2 \
  "seq  kernel     grid     block    GPU  stream          start µs   duration µs  completeness"
check List.PrintsStreamsInHexAsEveryOtherOutput has "$work/list" "0    0x55d92cfb5f10  32.560"
"$tv" list "$data/ws_gemm_overflow.ctrace" >"$work/list_over"
check List.SaysWhatALaunchLost has "$work/list_over" "984 dropped, 24 incomplete"
"$tv" diff "$run" "$run" --kernel matmul --launch-a 1 >/dev/null 2>"$work/e"
check Diff.ALaunchOfAnotherKernelIsNamedWithItsKernel has "$work/e" \
  "launch 1 is kernel layernorm, not matmul (--launch-a chooses one launch; 'trace-view list $run' shows each launch's kernel)"
# Messages that say what is wrong once and plainly
head -c 1000 "$ws" >"$work/cut.ctrace"
"$tv" "$work/cut.ctrace" >/dev/null 2>"$work/e"
check Messages.ACutFileIsNamedOnce equal "$(cat "$work/e")" \
  "trace-view: error: $work/cut.ctrace: .ctrace truncated: section 0 needs 1307 bytes, 968 left"
echo '{"kernel": "ws_gemm"}' >"$work/ws_gemm.trace_map.json"
"$tv" "$work/ws_gemm.trace_map.json" >/dev/null 2>"$work/e"
check Messages.ADecodeMapGivenAsATraceIsNamed has "$work/e" \
  "not a .ctrace file (bad magic): it is JSON, such as a decode map (.trace_map.json); trace-view reads the .ctrace file the traced program wrote"
exit $fail
