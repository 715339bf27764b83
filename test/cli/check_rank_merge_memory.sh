#!/usr/bin/env bash
# Merging many ranks streams (docs/viewer.md, "Many ranks"): 64 synthetic rank files
# (make_rank_files: the H200 run loop_1000_default.ctrace as ranks 0-63, 8 per host, each host's
# clock 2 ms ahead of the previous one's) against their first 8. The peak RSS (/usr/bin/time's
# %M) of --summary and --perfetto over 64 files may exceed that over 8 by 25% and 16 MB at most:
# the run's launch list and the processes' maps grow with the ranks, the records do not stay.
# The 56 extra files hold far more records than that margin, so a merge that kept them fails.
# Then the labels: every rank's rows are named by rank and host, and the bound between the
# hosts' clocks is stated. Memory, not time: the result does not depend on the machine's speed.
# usage: check_rank_merge_memory.sh TRACE-VIEW MAKE-RANK-FILES RUN.ctrace
set -uo pipefail
tv=$1 make=$2 fixture=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
[[ -x /usr/bin/time ]] || { echo "FAIL /usr/bin/time not found (Debian: time)"; exit 1; }
mkdir "$work/r64" "$work/r8"
"$make" "$fixture" "$work/r64" --ranks 64 --per-host 8 --host-offset-ns 2000000 \
  --host-clock-error-ns 250000 || exit 1
cp "$work"/r64/rank00[0-7].ctrace "$work/r8/"
kb_of() { du -k --apparent-size -c "$@" | tail -1 | cut -f1; }
extra_kb=$(($(kb_of "$work"/r64/*.ctrace) - $(kb_of "$work"/r8/*.ctrace)))
margin() { echo $(($1 / 4 + 16 * 1024)); } # KB over the 8-rank peak
peak_kb() { # DIR ARGS...: peak RSS in KB of trace-view DIR/*.ctrace ARGS
  local dir=$1; shift
  /usr/bin/time -f '%M' -o "$work/kb" "$tv" "$dir"/*.ctrace "$@" >/dev/null 2>"$work/err" ||
    { echo "     trace-view $*: $(tail -1 "$work/err")" >&2; echo 0; return; }
  cat "$work/kb"
}
bounded() { # NAME ARGS...
  local name=$1; shift
  local s l
  s=$(peak_kb "$work/r8" "$@") l=$(peak_kb "$work/r64" "$@")
  if ((s > 0 && l > 0 && l <= s + $(margin "$s") && extra_kb > $(margin "$s"))); then
    echo "ok   $name: $((s / 1024)) MB for 8 ranks, $((l / 1024)) MB for 64 ($((extra_kb / 1024)) MB more records)"
  else
    echo "FAIL $name: $((s / 1024)) MB for 8 ranks, $((l / 1024)) MB for 64 ($((extra_kb / 1024)) MB more records; margin $(($(margin "$s") / 1024)) MB)"
    fail=1
  fi
}
bounded RankMerge.SummaryOf64RanksIsBounded --summary
bounded RankMerge.PerfettoTraceOf64RanksIsBounded --perfetto "$work/out.pftrace"

expect() { # NAME FILE TEXT: FILE holds TEXT
  if grep -qF -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3' in $2"; fail=1; fi
}
"$tv" "$work"/r64/*.ctrace --summary >"$work/summary.txt" 2>"$work/err" || { cat "$work/err"; fail=1; }
# Each host's clock is placed as it reads: node07's copy of the 47.387 ms run ends 7 x 2 ms later.
expect RankMerge.SummaryStatesTheHostClockBound "$work/summary.txt" \
  "64 processes, 64 GPUs, 61387.136 µs from first begin to last end; time axis: the clocks of 8 hosts, processes of different hosts within 500.000 µs of each other"
expect RankMerge.SummaryNamesRankLocalRankAndHost "$work/summary.txt" \
  "process rank 63 (local 7): loop_traced (pid 10063 on node07)"
"$tv" "$work"/r64/*.ctrace --html "$work/run.html" --html-max-mb 1 2>"$work/err" ||
  { cat "$work/err"; fail=1; }
for r in 0 9 63; do
  expect "RankMerge.OverviewRowsNamedByRankAndHost (rank $r)" "$work/run.html" \
    "rank $r · node0$((r / 8)) · GPU $((r % 8)) (NVIDIA H200) · stream 0x"
done
expect RankMerge.OverviewStatesTheHostClockBound "$work/run.html" '"host_clock_bound_ns":500000'
exit $fail
