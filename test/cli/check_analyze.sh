#!/usr/bin/env bash
# `trace-view analyze` (docs/analysis.md): its output on the committed H200 fixtures against the
# reviewed goldens in test/data/h200/analysis/, and its errors (status and message).
# usage: check_analyze.sh TRACE-VIEW DATA-DIR [--update]   (DATA-DIR: test/data/h200)
set -uo pipefail
tv=$1 data=$2 update=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# golden file, then the arguments of `trace-view analyze` (paths relative to DATA-DIR).
goldens=(
  "ws_gemm.txt|ws_gemm.ctrace"
  "ws_gemm.cta0_window.json|ws_gemm.ctrace --cta 0 --window 0:15000 --json -"
  "ws_gemm.window.txt|ws_gemm.ctrace --window 2000:4000"
  "ws_wgmma_gemm.txt|issue14/ws_wgmma_gemm.ctrace"
  "layernorm_rows.txt|issue14/layernorm_rows.ctrace"
  "block_sum.txt|block_sum.ctrace"
  "layernorm_waves.tail.txt|waves/layernorm_waves.ctrace --only tail"
  "layernorm_full_waves.tail.txt|waves/layernorm_full_waves.ctrace --only tail"
)
for entry in "${goldens[@]}"; do
  golden=${entry%%|*} args=${entry#*|}
  read -ra argv <<<"$args"
  argv[0]=$data/${argv[0]}
  (cd "$data" && "$tv" analyze "${argv[@]}") >"$work/out" 2>"$work/err"; s=$?
  if [[ $update == --update ]]; then
    cp "$work/out" "$data/analysis/$golden"
    echo "updated $golden"
  elif [[ $s != 0 ]] || ! diff -u "$data/analysis/$golden" "$work/out"; then
    echo "FAIL Analyze.GoldenOf.$golden: status $s, stderr: $(cat "$work/err")"
    fail=1
  else
    echo "ok   Analyze.GoldenOf.$golden"
  fi
done

source "$(dirname "$0")/expect.sh"
ws=$data/ws_gemm.ctrace

"$tv" analyze >/dev/null 2>"$work/e"; s=$?
expect "Analyze.NoInputIsAUsageError" 2 "trace-view: error: analyze: no input file (see --help)" $s "$work/e"

"$tv" analyze "$ws" --only handoff,stalls >/dev/null 2>"$work/e"; s=$?
expect "Analyze.UnknownAnalysisIsAUsageError" 2 \
  "trace-view: error: --only wants a comma-separated list of handoff, busy, tail, histogram, outliers, loops, got 'handoff,stalls' (see --help)" $s "$work/e"

"$tv" analyze "$ws" --window 5000:100 >/dev/null 2>"$work/e"; s=$?
expect "Analyze.WindowEndBeforeBeginIsAUsageError" 2 \
  "trace-view: error: --window wants BEGIN:END, two numbers with BEGIN <= END, got '5000:100' (see --help)" $s "$work/e"

"$tv" analyze "$ws" --bins 0 >/dev/null 2>"$work/e"; s=$?
expect "Analyze.ZeroBinsIsAUsageError" 2 "trace-view: error: --bins wants a count from 1 to 10000, got '0' (see --help)" $s "$work/e"

"$tv" analyze "$ws" "$ws" >/dev/null 2>"$work/e"; s=$?
expect "Analyze.TwoInputsIsAUsageError" 2 \
  "trace-view: error: analyze reads one input, got 2 (trace-view diff compares two) (see --help)" $s "$work/e"

"$tv" analyze "$data/diff/ws_gemm_repeat_run.ctrace" >/dev/null 2>"$work/e"; s=$?
expect "Analyze.RunOfSeveralLaunchesNeedsLaunch" 2 \
  "trace-view: error: $data/diff/ws_gemm_repeat_run.ctrace holds 4 launches, sequence numbers 0 to 3: choose one with --launch N (see --help)" $s "$work/e"

"$tv" analyze "$ws" --launch 3 >/dev/null 2>"$work/e"; s=$?
expect "Analyze.MissingLaunchSaysWhatTheRunHolds" 2 \
  "trace-view: error: $ws: no launch 3: the run holds 1 launch, sequence number 0" $s "$work/e"

"$tv" analyze "$ws" --cta 12 >/dev/null 2>"$work/e"; s=$?
expect "Analyze.MissingCtaSaysTheGridSize" 2 "trace-view: error: $ws: no CTA 12 (the grid has 12)" $s "$work/e"

"$tv" analyze "$ws" --only busy >/dev/full 2>"$work/e"; s=$?
expect "Analyze.OutputToAFullDiskIsAnOutputError" 1 \
  "trace-view: error: cannot write to stdout: No space left on device" $s "$work/e"

"$tv" analyze "$ws" --name nothing --only outliers >"$work/out" 2>"$work/e"; s=$?
expect "Analyze.NameThatNoSliceHasIsAWarning" 0 \
  "trace-view: warning: $ws: no slice is named 'nothing'" $s "$work/e"

"$tv" analyze --help >"$work/out" 2>"$work/e"; s=$?
if [[ $s != 0 || $(head -1 "$work/out") != "usage: trace-view analyze FILE.ctrace"* ]]; then
  echo "FAIL Analyze.HelpPrintsItsUsage: status $s"; fail=1
else
  echo "ok   Analyze.HelpPrintsItsUsage"
fi
exit $fail
