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
check Analyze.FirstAnswerIsWhereEachGroupsTimeGoes line "$work/ws" 5 \
  "  time       producer 98.2% produce; consumer 98.1% consume, 0.1% epilogue"
check Analyze.NextAnswerIsTheBiggestHandoffWait line "$work/ws" 6 \
  "  hand-offs  consume waits for produce 80.8% of its rows' life (mean 1970.8 ns, p95 2415.9 ns per hand-off; 192 of 192 waited)"

# The bundled Hopper pipeline: TMA issued in `load`, the consumers wait in a `wait` range of their
# own. The answers lead with the time by name, and the hand-off says its arrow measures issue.
hopper=$data/issue14/ws_wgmma_gemm.ctrace
"$tv" analyze "$hopper" >"$work/hopper"
check Analyze.HopperRunLeadsWithTimeByRangeName line "$work/hopper" 5 \
  "  time       producer 37.3% load, 19.2% wait_empty; consumer 30.1% compute, 11.2% wait, 10.3% epilogue"
check Analyze.AHandoffWhoseSrcEndsBeforeEveryDstSaysItMeasuresIssue line "$work/hopper" 6 \
  "  hand-offs  load -> compute: the arrow measures issue (no compute began before its load ended: load ends when the transfer is issued); issue -> end of the consumer's wait mean 995.5 ns, p95 1342.2 ns (64 of 64 hand-offs)"
check Analyze.TimeByNameIsGivenPerWarpgroupRow has "$work/hopper" \
  "    consumer[wg2]: wait            2023.0   7.2%"
# The same shares, and issue -> end of wait, from the SQLite export by a query of their own.
if "$tv" "$hopper" --sqlite "$work/hopper.db" 2>/dev/null; then
  sql=$(python3 - "$work/hopper.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
life = dict(db.execute("select group_name, sum(end_ns - start_ns) from rows where started group by 1"))
out = []
for g, n, d in db.execute("""select r.group_name, e.name, sum(e.duration_ns) from events e
    join rows r on r.launch = e.launch and r.row = e.row where e.kind = 'slice'
    group by 1, 2 order by r.group_index, 3 desc"""):
    out.append("%s %s %.1f%%" % (g, n, 100 * d / life[g]))
# issue -> ready: per flow, the consumer's `wait` on the dst row ending last at or before dst begins
ready = [w for (w,) in db.execute("""select (select max(w.end_ns) from events w
      where w.launch = d.launch and w.row = d.row and w.name = 'wait' and w.end_cycles <= d.begin_cycles)
      - s.end_ns from flows f join events s on s.event = f.src join events d on d.event = f.dst""")]
out.append("issue->ready mean %.1f ns of %d" % (sum(ready) / len(ready), len(ready)))
print("; ".join(out))
PY
)
  check Analyze.TimeByNameEqualsTheSqlOfTheExport equal "$sql" \
    "producer load 37.3%; producer wait_empty 19.2%; consumer compute 30.1%; consumer wait 11.2%; consumer epilogue 10.3%; issue->ready mean 995.5 ns of 64"
fi

# CUTLASS example 54: two consumer warpgroups per tile, one flow per load.
cutlass=$data/cutlass/54_hopper_fp8_warp_specialized_gemm_traced.ctrace
"$tv" analyze "$cutlass" --launch 0 --only handoff >"$work/cutlass"
check Analyze.WaitFractionCountsEveryRowHoldingDst has "$work/cutlass" \
  "waits are 0.0% of the life of the 8 rows holding consume (54400.0 ns)"
check Analyze.ConsumesThatGotNoHandoffAreCounted has "$work/cutlass" \
  "    16 of the 32 consume slices got no hand-off: each load_tile pairs with one consume"

# Fewer than 20 CTAs: the 95th percentile is the last CTA, so the tail is the last CTA's lag.
"$tv" analyze "$data/pipeline.ctrace" --only tail >"$work/few"
check Analyze.TailOfFewCtasIsTheLastCtasLagBehindTheOthers line "$work/few" 5 \
  "  tail       8 CTAs (under 20, the 95th percentile is the last CTA): the last CTA ends 6720.0 ns after the next-to-last (69.8% of the kernel's 9632.0 ns)"
check Analyze.TailTableSaysWhatTheAnswerSays has "$work/few" \
  "  8 CTAs (under 20, the 95th percentile is the last CTA): the last CTA ends 6720.0 ns after the next-to-last"

# Dropped events name the option that keeps them, in each build's spelling.
"$tv" analyze "$data/ws_gemm_overflow.ctrace" >"$work/over"
check Completeness.DroppedEventsNameTheMaxEventsThatKeepsThem has "$work/over" \
  "984 events dropped (row full) on 24 rows (to keep them, rebuild with --max-events 50 or more: cutrace_instrument(... MAX_EVENTS 50), cutrace-nvcc --cutrace-max-events=50)"
check Analyze.AnswersNameTheMostAndLeastWorkingGroup has "$work/ws" \
  "  busy       most working producer 98.2% in ranges; least working consumer 98.1% in ranges (80.8% waiting on hand-offs, 17.3% working)"

"$tv" analyze "$waves" >"$work/waves"
check Analyze.AnswersOfAKernelWithoutHandoffsSayItInOneLine has "$work/waves" \
  "  hand-offs  no TRACE_DAG pair declared"
check Analyze.AnswersSayTheWavesAreObservedNotOccupancys has "$work/waves" \
  "  waves      2 observed waves (max over SMs of its CTAs / the most it ran at once): 264 CTAs on 132 SMs, at most 1 at once per SM (2.00 full waves)"
check Analyze.MoreThan16RowsAreSummarized has "$work/waves" \
  "  per row: 8448 rows; busy min 43.1%, median 70.6%, max 96.4%"
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
d=$data/diff
"$tv" diff "$d/ws_gemm_run1.ctrace" "$d/ws_gemm_float4.ctrace" >"$work/dk"
check Diff.OpensWithTheWholeKernelsChange line "$work/dk" 2 \
  "  whole kernel: kernel p50 39872.0 -> 22176.0 ns (-44.4%, band ±5.0%); CTA p50 39744.0 -> 22112.0 ns (-44.4%, band ±5.0%); CTA p95 39840.0 -> 22144.0 ns (-44.4%, band ±5.0%)"
check Diff.ChangeNsColumnIsSignedAndImpactIsItsSize has "$work/dk" \
  "rows by impact = |change of total time per CTA| (the signed change, B - A, is 'change ns')"

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
