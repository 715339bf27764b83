#!/usr/bin/env bash
# trace-view --sqlite (docs/analysis.md, "SQL and pandas"): every committed H200 fixture exported
# and queried with the sqlite3 shell; its launches, rows, events and flows must be what the
# decoder reports (trace-view --json / --perfetto-json of the same file, test/sqlite/decoder_counts.py),
# a few values must be the decoder's exactly, and a failing export writes or replaces nothing.
# usage: check_export.sh TRACE-VIEW DATA-DIR (test/data)
set -uo pipefail
tv=$1 data=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }
q() { sqlite3 -batch "$1" "$2"; } # one value per line, '|' between columns

# Launch, row, event and flow counts of one exported database, in decoder_counts.py's lines.
db_counts() { # DB DECODER-LINES
  local db=$1 line kind seq
  while read -r kind seq _; do
    if [[ $kind == total && $seq != 1 ]] || [[ $kind == total && $(q "$db" "SELECT count(*) FROM launches") != 1 ]]; then
      echo "total $(q "$db" "SELECT count(*) FROM launches") - $(q "$db" "SELECT
        (SELECT count(*) FROM events WHERE kind = 'slice') || ' ' ||
        (SELECT count(*) FROM events WHERE kind = 'instant') || ' ' || (SELECT count(*) FROM flows)")"
    elif [[ $kind == total ]]; then
      echo "total 1 $(q "$db" "SELECT (SELECT count(*) FROM rows) || ' ' ||
        (SELECT count(*) FROM events WHERE kind = 'slice') || ' ' ||
        (SELECT count(*) FROM events WHERE kind = 'instant') || ' ' || (SELECT count(*) FROM flows)")"
    else
      echo "launch $seq $(q "$db" "SELECT
        (SELECT count(*) FROM rows JOIN launches l USING (launch) WHERE l.sequence = $seq) || ' ' ||
        (SELECT count(*) FROM events JOIN launches l USING (launch)
          WHERE l.sequence = $seq AND kind = 'slice') || ' ' ||
        (SELECT count(*) FROM events JOIN launches l USING (launch)
          WHERE l.sequence = $seq AND kind = 'instant') || ' ' ||
        (SELECT count(*) FROM flows JOIN launches l USING (launch) WHERE l.sequence = $seq)")"
    fi
  done <<<"$2"
}

# --- Sqlite.CountsEqualTheDecodersOnEveryFixture ---
n=0
while IFS= read -r f; do
  rel=${f#"$data"/}
  want=$(/usr/bin/python3 "$here/decoder_counts.py" "$tv" "$f") || { bad Sqlite.CountsEqualTheDecodersOnEveryFixture "$rel: decoder_counts failed"; continue; }
  if ! "$tv" "$f" --sqlite "$work/f.db" 2>"$work/e"; then
    bad Sqlite.CountsEqualTheDecodersOnEveryFixture "$rel: export failed: $(cat "$work/e")"
    continue
  fi
  got=$(db_counts "$work/f.db" "$want")
  if [[ $got != "$want" ]]; then
    bad Sqlite.CountsEqualTheDecodersOnEveryFixture "$rel: database says
$got
     decoder says
$want"
  fi
  n=$((n + 1))
done < <(find "$data/h200" -name '*.ctrace' | sort)
((n >= 20)) || bad Sqlite.CountsEqualTheDecodersOnEveryFixture "only $n fixtures found under $data/h200"
((fail)) || ok "Sqlite.CountsEqualTheDecodersOnEveryFixture ($n fixtures)"

# --- Values: the first produce slice of ws_gemm's CTA 0 and its flow, as --json decodes them ---
ws=$data/h200/ws_gemm.ctrace
"$tv" "$ws" --sqlite "$work/ws.db" 2>/dev/null
"$tv" "$ws" --json "$work/ws.json" 2>/dev/null
want=$(/usr/bin/python3 - "$work/ws.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
row = next(r for r in d["rows"] if r["cta"] == 0 and r["group"] == "producer")
s = row["slices"][0]
f = next(f for f in d["flows"] if f["src"] == [d["rows"].index(row), 0])
print("%s %s %d %d %d %r %r %r %d %r" % (s["name"], s["lane"], s["payload"], s["begin_cycles"],
      s["end_cycles"], s["begin_ns"], s["end_ns"], row["ghz"], f["at_cycles"], f["at_ns"]))
EOF
)
got=$(q "$work/ws.db" "SELECT e.name, e.lane, e.payload, e.begin_cycles, e.end_cycles,
  printf('%!.17g', e.begin_ns), printf('%!.17g', e.end_ns), printf('%!.17g', r.ghz), f.at_cycles,
  printf('%!.17g', f.at_ns)
  FROM events e JOIN rows r USING (launch, row) JOIN flows f ON f.src = e.event
  WHERE r.cta = 0 AND r.group_name = 'producer' AND e.kind = 'slice'
  ORDER BY e.begin_cycles LIMIT 1" | tr '|' ' ')
# printf's %!.17g and Python's repr may spell one double differently: compare as numbers.
if /usr/bin/python3 -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split()
sys.exit(not (len(a) == len(b) == 10 and a[:5] == b[:5] and a[8] == b[8] and
              all(float(x) == float(y) for x, y in zip(a[5:8] + a[9:], b[5:8] + b[9:]))))' "$got" "$want"; then
  ok Sqlite.SliceBeginEndCyclesNsAndFlowEqualTheDecoders
else
  bad Sqlite.SliceBeginEndCyclesNsAndFlowEqualTheDecoders "database: $got; decoder: $want"
fi

# The decode map's site locations: the fixture's map (strings ws_gemm.ctrace) has the sites
# produce, stage_ready, consume, stage_free, epilogue at warp_specialized.cu:44:7, 54:7, 63:7, 72:7
# and 74:16.
got=$(q "$work/ws.db" "SELECT name, kind, file, line, count(*) FROM events GROUP BY name, kind, file, line ORDER BY name")
want="consume|slice|warp_specialized.cu|63|192
epilogue|slice|warp_specialized.cu|74|12
produce|slice|warp_specialized.cu|44|192
stage_free|instant|warp_specialized.cu|72|192
stage_ready|instant|warp_specialized.cu|54|192"
[[ $got == "$want" ]] && ok Sqlite.EventSourceIsTheMapSiteFileAndLine ||
  bad Sqlite.EventSourceIsTheMapSiteFileAndLine "got
$got"

# Hand-off wait and gap of each flow: max(0, src end - dst begin), max(0, dst begin - src end).
got=$(q "$work/ws.db" "SELECT count(*) FROM flows f JOIN events s ON s.event = f.src
  JOIN events d ON d.event = f.dst
  WHERE f.wait_ns != max(0, s.end_ns - d.begin_ns) OR f.gap_ns != max(0, d.begin_ns - s.end_ns)
     OR s.name != 'produce' OR d.name != 'consume' OR s.cta != d.cta OR f.cta != d.cta")
[[ $got == 0 ]] && ok Sqlite.FlowWaitAndGapFollowTheirDefinition ||
  bad Sqlite.FlowWaitAndGapFollowTheirDefinition "$got flows disagree"

got=$(q "$work/ws.db" "SELECT key || '=' || value FROM meta WHERE key IN ('schema_version', 'input_file')")
[[ $got == "schema_version=2
input_file=$ws" ]] && ok Sqlite.MetaNamesSchemaVersionAndInput || bad Sqlite.MetaNamesSchemaVersionAndInput "$got"

got=$(q "$work/ws.db" "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name" | tr '\n' ' ')
[[ $got == "events_cta events_name events_row flows_dst flows_launch flows_src launches_kernel rows_cta rows_group rows_smid " ]] &&
  ok Sqlite.IndexesOnTheFilteredAndJoinedColumns || bad Sqlite.IndexesOnTheFilteredAndJoinedColumns "$got"

# --- Several inputs merge into one database, one process each ---
"$tv" "$data/h200/diff/ws_gemm_run1.ctrace" "$data/h200/runs/graph_capture.ctrace" --sqlite "$work/m.db" 2>/dev/null
got=$(q "$work/m.db" "SELECT process, count(*), sum(ctas) FROM launches GROUP BY process;
  SELECT count(*) FROM events; SELECT count(*) FROM meta WHERE key = 'input_file'" | tr '\n' ' ')
[[ $got == "0|1|12 1|4|1024 1804 2 " ]] && ok Sqlite.SeveralInputsAreOneDatabase ||
  bad Sqlite.SeveralInputsAreOneDatabase "got $got"

# --- Errors: status, message, and no file written or replaced ---
expect_error() { # name want_status stderr_pattern status stderr_file
  if [[ $4 == "$2" && $(cat "$5") == $3 && $(wc -l <"$5") == 1 &&
        -z $(find "$work" -name '*.tmp.*' -print -quit) ]]; then ok "$1"
  else bad "$1" "status $4 (want $2), stderr: $(cat "$5"), temporaries: $(find "$work" -name '*.tmp.*')"; fi
}
"$tv" "$ws" --sqlite - >"$work/out" 2>"$work/e"; s=$?
expect_error Sqlite.StdoutIsAUsageError 2 "trace-view: error: --sqlite wants a file name*" $s "$work/e"
[[ -s $work/out ]] && bad Sqlite.StdoutIsAUsageError "wrote to stdout"

cp "$ws" "$work/in.ctrace"
ln -s in.ctrace "$work/link.ctrace"
for out in "$work/in.ctrace" "$work/./in.ctrace" "$work/link.ctrace"; do
  "$tv" "$work/in.ctrace" --sqlite "$out" 2>"$work/e"; s=$?
  expect_error "Sqlite.OutputThatIsAnInputIsRefused ($out)" 2 "trace-view: error: --sqlite * is an input file*" $s "$work/e"
  cmp -s "$ws" "$work/in.ctrace" || bad Sqlite.OutputThatIsAnInputIsRefused "input changed"
done

"$tv" "$ws" --sqlite "$work/missing/dir/t.db" 2>"$work/e"; s=$?
if [[ $s == 0 && -s $work/missing/dir/t.db ]]; then ok Sqlite.MissingParentFoldersAreCreated
else bad Sqlite.MissingParentFoldersAreCreated "status $s: $(cat "$work/e")"; fi
: >"$work/plain"
"$tv" "$ws" --sqlite "$work/plain/t.db" 2>"$work/e"; s=$?
expect_error Sqlite.UnwritablePathIsAnOutputErrorNamingThePathGivenAndWhy 1 \
  "trace-view: error: cannot write '$work/plain/t.db': cannot create folder '$work/plain': Not a directory" $s "$work/e"
[[ -s $work/plain ]] && bad Sqlite.UnwritablePathIsAnOutputErrorNamingThePathGivenAndWhy "wrote into $work/plain"

mkdir "$work/dir.db"
"$tv" "$ws" --sqlite "$work/dir.db" 2>"$work/e"; s=$?
expect_error Sqlite.ExistingDirectoryIsRefusedBeforeAnyWork 2 "trace-view: error: --sqlite '$work/dir.db' is a directory*" $s "$work/e"
[[ -d $work/dir.db && -z $(ls -A "$work/dir.db") ]] || bad Sqlite.ExistingDirectoryIsRefusedBeforeAnyWork "directory changed"

echo "an older file" >"$work/old.db"
printf 'not a trace' >"$work/bad.ctrace"
"$tv" "$work/bad.ctrace" --sqlite "$work/old.db" 2>"$work/e"; s=$?
expect_error Sqlite.UnreadableInputLeavesTheOutputAlone 2 "trace-view: error: *bad.ctrace*" $s "$work/e"
[[ $(cat "$work/old.db") == "an older file" ]] || bad Sqlite.UnreadableInputLeavesTheOutputAlone "old.db changed"

"$tv" "$ws" --sqlite "$work/old.db" 2>"$work/e"; s=$?
[[ $s == 0 && $(q "$work/old.db" "SELECT count(*) FROM launches") == 1 ]] &&
  ok Sqlite.ExistingFileIsReplacedWhole || bad Sqlite.ExistingFileIsReplacedWhole "status $s, $(cat "$work/e")"
exit $fail
