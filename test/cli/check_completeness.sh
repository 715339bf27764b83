#!/usr/bin/env bash
# Completeness travels with every figure (docs/analysis.md, "Completeness"): on the committed
# fixtures that lost data (ws_gemm_overflow: rows full; doomed_mapped: a trapped CTA; a run cut
# inside its last launch section), every command and format says what is missing and marks what
# it affects; the complete fixture says it is complete.
# usage: check_completeness.sh TRACE-VIEW DATA-DIR PFTRACE-TO-JSON   (DATA-DIR: test/data/h200;
#        PFTRACE-TO-JSON: test/perfetto/pftrace_to_json.cpp, reads a --perfetto trace back)
set -uo pipefail
tv=$1 data=$2 pj=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok=$data/ws_gemm.ctrace over=$data/ws_gemm_overflow.ctrace doomed=$data/doomed_mapped.ctrace
run=$data/runs/loop_1000_default.ctrace
# The run cut 50000 bytes before its end: inside its last launch section (launch 23, softmax,
# 82048 bytes), after its fixed fields; the END section is gone with it.
cut=$work/cut.ctrace
head -c $(($(stat -c %s "$run") - 50000)) "$run" >"$cut"

check() { # NAME COMMAND...: the command must succeed (exit 0)
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
line() { # FILE N WANT: line N of FILE is WANT
  local got; got=$(sed -n "$2p" "$1")
  [[ $got == "$3" ]] || { echo "     line $2: '$got'"; echo "     want:   '$3'"; return 1; }
}
has() { grep -qF -- "$2" "$1" || { echo "     '$2' not in $1"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "     '$2' in $1"; return 1; }; }
py() { python3 -c "$1" "${@:2}" || return 1; }

over_line="INCOMPLETE: 984 events dropped (row full) on 24 rows (to keep them, rebuild with --max-events 50 or more: cutrace_instrument(... MAX_EVENTS 50), cutrace-nvcc --cutrace-max-events=50); 24 incomplete slices (begun, never ended: cut at the row's last timestamp)"
doomed_line="INCOMPLETE: 1 incomplete slice (begun, never ended: cut at the row's last timestamp); 1 row never ended (the kernel trapped or was killed)"
ok_line="complete: no event dropped, every slice closed, every row ended"

# --summary and --json
"$tv" "$over" --summary >"$work/s_over"
"$tv" "$doomed" --summary >"$work/s_doomed"
"$tv" "$ok" --summary >"$work/s_ok"
check Completeness.SummaryOfAnOverflowedLaunchSaysWhatWasDropped line "$work/s_over" 2 "$over_line"
check Completeness.SummaryOfATrappedLaunchSaysARowNeverEnded line "$work/s_doomed" 2 "$doomed_line"
check Completeness.SummaryOfACompleteLaunchSaysSo line "$work/s_ok" 2 "$ok_line"
"$tv" "$over" --json "$work/j_over.json" 2>/dev/null
"$tv" "$doomed" --json "$work/j_doomed.json" 2>/dev/null
check Completeness.JsonOfALaunchCarriesItsGaps py '
import json, sys
o, d = (json.load(open(f)) for f in sys.argv[1:3])
c = o["completeness"]
assert (c["complete"], c["dropped_events"], c["rows_overflowed"], c["incomplete_slices"]) == (False, 984, 24, 24), c
assert d["completeness"]["rows_never_ended"] == 1, d["completeness"]
assert sum(r["never_ended"] for r in d["rows"]) == 1
assert sum(s["incomplete"] for r in o["rows"] for s in r["slices"]) == 24
' "$work/j_over.json" "$work/j_doomed.json"

# analyze
"$tv" analyze "$over" >"$work/a_over"
"$tv" analyze "$doomed" >"$work/a_doomed"
check Analyze.OpensWithTheLaunchsCompleteness line "$work/a_over" 2 "$over_line"
check Analyze.OfATrappedLaunchSaysARowNeverEnded line "$work/a_doomed" 2 "$doomed_line"
check Analyze.SaysHowManyHandoffsAreOverIncompleteSlices has "$work/a_over" \
  "12 of them over incomplete slices"
check Analyze.MarksEveryIncompleteSlowestSlice test "$(grep -c 'consume (incomplete)' "$work/a_over")" = 10
check Analyze.MarksRowsWithGaps has "$work/a_over" "42 dropped, 1 incomplete"
check Analyze.MarksTheRowThatNeverEnded has "$work/a_doomed" "never ended, 1 incomplete"
check Analyze.MarksTheCtaWhoseFinishIsCut has "$work/a_doomed" "1 CTA holds a row that never ended"
check Analyze.HistogramsCountIncompleteSlices has "$work/a_over" \
  "12 of them incomplete: cut at their row's last event"
"$tv" analyze "$over" --json "$work/a_over.json" 2>/dev/null
check Analyze.JsonFlagsEveryIncompleteFigure py '
import json, sys
a = json.load(open(sys.argv[1]))
assert a["completeness"]["dropped_events"] == 984
assert a["handoffs"][0]["incomplete"] == 12
assert all(o["incomplete"] for o in a["outliers"])
assert {h["name"]: h["incomplete"] for h in a["histograms"]} == {"consume": 12, "produce": 12}
assert sum(r["dropped"] for r in a["busy"]["rows"]) == 984
' "$work/a_over.json"

# diff: a change between sides of different completeness is never noise
"$tv" diff "$ok" "$over" >"$work/d" 2>/dev/null
check Diff.RefusesNoiseWhenTheSidesCompletenessDiffers test "$(grep -cE '%  noise$' "$work/d")" = 0
check Diff.SaysTheCompletenessDiffers has "$work/d" "warning: completeness differs (A complete"
check Diff.MarksRowsOverIncompleteSlices has "$work/d" "consume [incomplete: A 0, B 12]"
"$tv" diff "$ok" "$over" --json "$work/d.json" >/dev/null 2>&1
check Diff.JsonSaysWhyNoChangeIsNoise py '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["completeness_differs"] and d["b"]["completeness"]["dropped_events"] == 984
assert not any(r["within_noise"] for r in d["rows"])
consume = next(r for r in d["rows"] if r["name"] == "consume")
assert consume["noise_refused"] and consume["b"]["incomplete"] == 12
' "$work/d.json"
"$tv" diff "$over" "$over" >"$work/d_same" 2>"$work/d_same_err"
check Diff.SidesOfEqualCompletenessKeepNoise test "$(grep -cE '%  noise$' "$work/d_same")" = 6
check Diff.TheSameFileTwiceIsWarnedAbout has "$work/d_same_err" "A and B are the same file"

# Perfetto: its protobuf trace (read back as JSON by pftrace_to_json) and its JSON
"$tv" "$over" --perfetto "$work/p_over.pftrace" --perfetto-json "$work/p_over.json" 2>/dev/null
"$tv" "$doomed" --perfetto "$work/p_doomed.pftrace" --perfetto-json "$work/p_doomed.json" 2>/dev/null
"$pj" "$work/p_over.pftrace" >"$work/p_over.pb.json"
"$pj" "$work/p_doomed.pftrace" >"$work/p_doomed.pb.json"
check Perfetto.FlagsIncompleteSlicesAndNamesRowsWithGaps py '
import json, sys
o, d = (json.load(open(f)) for f in sys.argv[1:3])
launch = next(e for e in o["events"] if e["type"] == "B" and "dropped_events" in e["args"])
assert launch["name"] == "ws_gemm [INCOMPLETE]" and launch["args"]["complete"] is False, launch
assert launch["args"]["dropped_events"] == 984 and launch["args"]["incomplete_slices"] == 24
assert sum(1 for e in o["events"] if e["type"] == "B" and e["args"].get("incomplete")) == 24
# an incomplete slice is named so: the length drawn is not how long it ran
assert all(e["name"].endswith(" (incomplete: end not recorded)") for e in o["events"]
           if e["type"] == "B" and e["args"].get("incomplete"))
names = [t["name"] for t in o["tracks"] if " / " in t["name"]]
assert names and all("dropped]" in n for n in names), names[:3]
assert sum(1 for e in o["events"] if e["type"] == "B" and "dropped" in e["args"]) == len(names)
dl = next(e for e in d["events"] if e["type"] == "B" and "rows_never_ended" in e["args"])
assert dl["args"]["rows_never_ended"] == 1
assert sum("never ended]" in t["name"] for t in d["tracks"]) == 1
assert sum(1 for e in d["events"] if e["args"].get("never_ended")) == 1
' "$work/p_over.pb.json" "$work/p_doomed.pb.json"
check PerfettoJson.FlagsIncompleteSlicesAndNamesRowsWithGaps py '
import json, sys
o, d = (json.load(open(f)) for f in sys.argv[1:3])
assert o["otherData"]["completeness"]["dropped_events"] == 984
assert sum(1 for e in o["traceEvents"] if e["ph"] == "X" and e["args"].get("incomplete")) == 24
assert all(e["name"].endswith(" (incomplete: end not recorded)") for e in o["traceEvents"]
           if e["ph"] == "X" and e["args"].get("incomplete"))
names = [e["args"]["name"] for e in o["traceEvents"] if e["name"] == "thread_name"]
assert all("dropped]" in n for n in names), names[:3]
assert d["otherData"]["completeness"]["rows_never_ended"] == 1
assert sum("never ended]" in e["args"]["name"] for e in d["traceEvents"] if e["name"] == "thread_name") == 1
' "$work/p_over.json" "$work/p_doomed.json"

# A trace-view built without SQLite says --sqlite is unavailable: its checks are then skipped.
sqlite=(--sqlite "$work/r.db")
if "$tv" "$over" --sqlite "$work/probe.db" 2>&1 >/dev/null | grep -q "built without SQLite"; then
  echo "skip Sqlite.*: this trace-view was built without SQLite"
  sqlite=()
fi

# A run cut short: the launch that did not decode is named with why, in every output
"$tv" "$cut" --summary --json "$work/r.json" --perfetto-json "$work/r_p.json" --html "$work/r.html" \
  --perfetto "$work/r.pftrace" "${sqlite[@]}" >"$work/r_s" 2>"$work/r_err"
"$pj" "$work/r.pftrace" >"$work/r.pb.json"
why="launch 23 (softmax, $cut) not decoded: its section was cut short"
check Run.StderrNamesTheLaunchNotDecodedAndWhy has "$work/r_err" "trace-view: warning: $why"
check Run.SummarySaysHowManyLaunchesDecoded line "$work/r_s" 2 "INCOMPLETE: 23 of 24 launches decoded"
check Run.SummaryNamesTheLaunchNotDecoded has "$work/r_s" "not decoded: launch 23 (softmax, $cut): its section was cut short"
check Run.SummarySaysTheRunDidNotFinish has "$work/r_s" "did not finish writing its file (no END section)"
check Run.JsonAndPerfettoNameTheLaunchNotDecoded py '
import json, sys
for doc, key in ((json.load(open(sys.argv[1])), None), (json.load(open(sys.argv[2])), "otherData")):
    c = (doc[key] if key else doc)["completeness"]
    assert not c["complete"] and c["launches"] == 24 and c["launches_decoded"] == 23, c
    u = c["undecoded"][0]
    assert (u["sequence"], u["kernel"]) == (23, "softmax") and "cut short" in u["why"], u
    assert c["unfinished_processes"] == 1
' "$work/r.json" "$work/r_p.json"
check Run.PerfettoTraceSaysTheRunIsIncompleteAndNamesTheLaunchNotDecoded py '
import json, sys
t = json.load(open(sys.argv[1]))
assert not t["problems"], t["problems"][:3]
run = next(e for e in t["events"] if e["name"].startswith("run: "))
assert run["name"] == "run: INCOMPLETE" and run["args"]["complete"] is False, run
assert "23 of 24 launches decoded" in run["args"]["completeness"], run
assert (run["args"]["launches"], run["args"]["launches_decoded"]) == (24, 23)
lost = [e for e in t["events"] if e["name"].startswith("not decoded: ")]
assert len(lost) == 1 and lost[0]["name"].startswith("not decoded: launch 23 (softmax"), lost
assert "cut short" in lost[0]["args"]["why"]
' "$work/r.pb.json"
check Run.HtmlNamesTheLaunchNotDecoded has "$work/r.html" "not decoded: launch 23 (softmax"
if ((${#sqlite[@]})); then
check Sqlite.NamesTheLaunchNotDecodedAndFlagsGaps py '
import sqlite3, sys
r = sqlite3.connect(sys.argv[1])
assert r.execute("select sequence, kernel from undecoded").fetchall() == [(23, "softmax")]
assert r.execute("select value from meta where key = \"complete\"").fetchone() == ("0",)
' "$work/r.db"
"$tv" "$over" --sqlite "$work/o.db" >/dev/null 2>&1
"$tv" "$doomed" --sqlite "$work/dm.db" >/dev/null 2>&1
check Sqlite.FlagsEveryIncompleteSliceRowAndLaunch py '
import sqlite3, sys
o, d = (sqlite3.connect(f) for f in sys.argv[1:3])
assert o.execute("select complete, dropped_events, incomplete_slices from launches").fetchall() == [(0, 984, 24)]
assert o.execute("select count(*) from events where incomplete").fetchone() == (24,)
assert o.execute("select count(*) from flows where incomplete").fetchone() == (12,)
assert d.execute("select sum(never_ended) from rows").fetchone() == (1,)
assert d.execute("select rows_never_ended from launches").fetchone() == (1,)
' "$work/o.db" "$work/dm.db"
fi

# The same file, or a copy of it, given twice is two processes only with a warning
cp "$run" "$work/copy.ctrace"
"$tv" "$run" "$run" >/dev/null 2>"$work/twice"
"$tv" "$run" "$work/copy.ctrace" >/dev/null 2>"$work/copy"
check Run.TheSameFileTwiceIsWarnedAbout has "$work/twice" "are the same file: the outputs show it twice"
check Run.ACopyOfTheSameRunIsWarnedAbout has "$work/copy" "are the same run (same program, pid, host, start)"
exit $fail
