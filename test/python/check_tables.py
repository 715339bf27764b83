"""cutrace.open's tables hold what `trace-view --json` prints, on every committed run file: every
launch, row, slice, instant and flow, in order, with the same numbers (docs/python.md, "Tables").

usage: check_tables.py TRACE-VIEW DATA-DIR   (PYTHONPATH: the built package, build/python)"""
import os
import sys

import cutrace
from against_trace_view import check, close, finish, trace_view_json

trace_view, data = sys.argv[1], sys.argv[2]
def check_launch(path, run, launch, name):
    """One launch's tables against trace-view's decoded launch."""
    want = trace_view_json(trace_view, path, "--launch", str(launch["sequence"]))
    offset = launch["offset_ns"]
    rows = run.rows(launch["sequence"])
    slices = run.slices(launch["sequence"])
    instants = run.instants(launch["sequence"])
    flows = run.flows(launch["sequence"])
    check(len(rows) == len(want["rows"]), "%s: %d rows, trace-view %d" % (name, len(rows), len(want["rows"])))
    s = i = 0
    for r, w in zip(rows, want["rows"]):
        for field in ("index", "cta", "smid", "started", "closed", "attempted", "stored", "dropped"):
            key = "row" if field == "index" else field
            check(r[key] == w[field], "%s row %d: %s %s, trace-view %s" % (name, w["index"], field, r[key], w[field]))
        check(r["slices"] == len(w["slices"]) and r["instants"] == len(w["instants"]),
              "%s row %d: slice or instant count" % (name, w["index"]))
        for ws in w["slices"]:
            got = slices[s]
            s += 1
            check(got["row"] == w["index"] and got["name"] == ws["name"] and got["lane"] == ws["lane"]
                  and got["payload"] == ws["payload"] and got["incomplete"] == ws["incomplete"]
                  and got["begin_cycles"] == ws["begin_cycles"] and got["end_cycles"] == ws["end_cycles"]
                  and close(got["begin_ns"] - offset, ws["begin_ns"])
                  and close(got["end_ns"] - offset, ws["end_ns"]),
                  "%s row %d: slice %s differs" % (name, w["index"], ws))
        for wi in w["instants"]:
            got = instants[i]
            i += 1
            check(got["name"] == wi["name"] and got["payload"] == wi["payload"]
                  and got["cycles"] == wi["cycles"] and close(got["ns"] - offset, wi["ns"]),
                  "%s row %d: instant %s differs" % (name, w["index"], wi))
    check(s == len(slices) and i == len(instants), "%s: more slices or instants than trace-view" % name)
    check(len(flows) == len(want["flows"]), "%s: %d flows, trace-view %d" % (name, len(flows), len(want["flows"])))
    for f, wf in zip(flows, want["flows"]):
        src_row = want["rows"][wf["src"][0]]["index"]
        dst_row = want["rows"][wf["dst"][0]]["index"]
        check((f["src_row"], f["src_slice"], f["dst_row"], f["dst_slice"]) ==
              (src_row, wf["src"][1], dst_row, wf["dst"][1])
              and f["at_cycles"] == wf["at_cycles"] and close(f["at_ns"] - offset, wf["at_ns"]),
              "%s: flow %s differs" % (name, wf))


files = sorted(os.path.join(d, f) for d, _, fs in os.walk(data) for f in fs if f.endswith(".ctrace"))
launches_checked = 0
for path in files:
    name = os.path.relpath(path, data)
    run = cutrace.open(path)
    launches = run.launches()
    summary = trace_view_json(trace_view, path)
    if "launches" in summary:  # a run: its launch list
        listed = summary["launches"]
        check(len(listed) == len(launches), "%s: %d launches, trace-view %d" % (name, len(launches), len(listed)))
        for got, w in zip(launches, listed):
            check(got["sequence"] == w["sequence"] and got["kernel"] == w["kernel"]
                  and got["stream"] == w["stream"] and got["launch_index"] == w["launch_index"]
                  and [got["grid_x"], got["grid_y"], got["grid_z"]] == w["grid"]
                  and close(got["begin_ns"], w["begin_ns"]) and close(got["end_ns"], w["end_ns"])
                  and got["complete"] == w["completeness"]["complete"],
                  "%s: launch %s differs" % (name, w["sequence"]))
    for launch in launches:
        if launch["decoded"]:
            check_launch(path, run, launch, "%s launch %d" % (name, launch["sequence"]))
            launches_checked += 1

if launches_checked < 50:
    check(False, "fewer launches than the committed run files hold")
finish("%d files, %d launches compared" % (len(files), launches_checked))
