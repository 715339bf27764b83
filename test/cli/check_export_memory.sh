#!/usr/bin/env bash
# Every exporter streams (docs/PERFORMANCE.md, "4a"): its peak memory does not grow with the run.
# Two synthetic runs of one shape (test/browser/gen_run.cpp: launches of three kernels on two
# GPUs), of about 0.5 M and 2 M events, each exported by every command that must stay bounded;
# the peak RSS (/usr/bin/time's %M) of the larger may exceed the smaller's by 25% and 24 MB at
# most (the run's launch list, about 1 KB per launch, grows with it). Memory, not time: the
# result does not depend on the machine's speed or load.
# usage: check_export_memory.sh TRACE-VIEW GEN-RUN
set -uo pipefail
tv=$1 gen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
[[ -x /usr/bin/time ]] || { echo "FAIL /usr/bin/time not found (Debian: time)"; exit 1; }
"$gen" "$work/small" --iterations 356 --ctrace-only >/dev/null || exit 1  # 501 248 events
"$gen" "$work/large" --iterations 1421 --ctrace-only >/dev/null || exit 1 # 2 000 768 events
peak_kb() { # RUN ARGS...: peak RSS in KB of trace-view RUN ARGS
  local run=$1; shift
  rm -f "$work/out"
  /usr/bin/time -f '%M' -o "$work/kb" "$tv" "$run" "$@" >/dev/null 2>"$work/err" ||
    { echo "     trace-view $*: $(tail -1 "$work/err")" >&2; echo 0; return; }
  cat "$work/kb"
}
bounded() { # NAME ARGS...
  local name=$1; shift
  local s l
  s=$(peak_kb "$work/small.ctrace" "$@") l=$(peak_kb "$work/large.ctrace" "$@")
  if ((s > 0 && l > 0 && l <= s * 5 / 4 + 24 * 1024)); then
    echo "ok   $name: $((s / 1024)) MB at 0.5 M events, $((l / 1024)) MB at 2 M"
  else
    echo "FAIL $name: $((s / 1024)) MB at 0.5 M events, $((l / 1024)) MB at 2 M"
    fail=1
  fi
}
bounded ExportMemory.PerfettoTraceOfARunIsBounded --perfetto "$work/out"
if "$tv" "$work/small.ctrace" --launch 0 --sqlite "$work/probe.db" 2>&1 >/dev/null |
    grep -q "built without SQLite"; then
  echo "skip ExportMemory.SqliteOfARunIsBounded: this trace-view was built without SQLite"
else
  bounded ExportMemory.SqliteOfARunIsBounded --sqlite "$work/out"
fi
bounded ExportMemory.SummaryOfARunIsBounded --summary
bounded ExportMemory.OneLaunchsSummaryCostsThatLaunch --launch 7 --summary
bounded ExportMemory.OneLaunchsPerfettoTraceCostsThatLaunch --launch 7 --perfetto "$work/out"
exit $fail
