#!/usr/bin/python3
"""What the decoder says a .ctrace holds, from trace-view's own outputs (never from SQLite).

usage: decoder_counts.py TRACE-VIEW FILE.ctrace
One launch (trace-view --json: the decoded launch):
  total LAUNCHES ROWS SLICES INSTANTS FLOWS
A run of several launches (--json: the run summary; --perfetto-json: every launch's events):
  total LAUNCHES - SLICES INSTANTS FLOWS
  launch SEQUENCE ROWS SLICES INSTANTS FLOWS      (its first and last launch, by --launch N)
Rows are those the decoded launch's JSON lists: started, or holding records.
"""
import json
import subprocess
import sys


def trace_view(tv, *args):
    return json.loads(subprocess.run([tv, *args], check=True, capture_output=True).stdout)


def launch_counts(doc):
    rows = doc["rows"]
    return (len(rows), sum(len(r["slices"]) for r in rows),
            sum(len(r["instants"]) for r in rows), len(doc["flows"]))


def main(tv, path):
    doc = trace_view(tv, path, "--json", "-")
    if "rows" in doc:
        print("total 1 %d %d %d %d" % launch_counts(doc))
        return
    events = trace_view(tv, path, "--perfetto-json", "-")
    events = events["traceEvents"] if isinstance(events, dict) else events
    count = lambda ph, cat: sum(1 for e in events if e.get("ph") == ph and e.get("cat") == cat)
    print("total %d - %d %d %d" % (len(doc["launches"]), count("X", "slice"),
                                   count("i", "instant"), count("s", "dag")))
    sequences = sorted(l["sequence"] for l in doc["launches"])
    for seq in sorted({sequences[0], sequences[-1]}):
        one = trace_view(tv, path, "--launch", str(seq), "--json", "-")
        print("launch %d %d %d %d %d" % ((seq,) + launch_counts(one)))


if __name__ == "__main__":
    main(*sys.argv[1:])
