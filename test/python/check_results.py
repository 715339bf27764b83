"""cutrace.analyze and cutrace.diff give objects holding the numbers `trace-view analyze --json`
and `trace-view diff --json` print (docs/python.md, "Analyses"): busy, hand-offs, tail and
outliers of committed launches; every row of a comparison of two committed runs.

usage: check_results.py TRACE-VIEW DATA-DIR   (PYTHONPATH: the built package)"""
import os
import sys

import cutrace
from against_trace_view import check, close, failures, finish, trace_view_json


def near(a, b):
    return close(a, b, abs_tol=1e-9)

trace_view, data = sys.argv[1], sys.argv[2]
for name, launch in [("h200/ws_gemm.ctrace", None), ("h200/pipeline.ctrace", None),
                     ("h200/runs/loop_1000_default.ctrace", 3)]:
    path = os.path.join(data, name)
    args = [path] + (["--launch", str(launch)] if launch is not None else [])
    want = trace_view_json(trace_view, "analyze", *args)
    got = cutrace.analyze(path, launch=launch)
    check(isinstance(got, cutrace.Analysis), name + ": analyze gives no Analysis object")
    check(got.kernel == want["kernel"] and got.completeness.complete == want["completeness"]["complete"],
          name + ": kernel or completeness")
    check(len(got.busy.groups) == len(want["busy"]["groups"]), name + ": busy groups")
    for g, w in zip(got.busy.groups, want["busy"]["groups"]):
        check(g.name == w["name"] and g.rows == w["rows"] and near(g.busy_ns, w["busy_ns"])
              and near(g.life_ns, w["life_ns"]) and near(g.busy_fraction, w["busy_fraction"]),
              "%s: busy group %s" % (name, w["name"]))
    check(len(got.handoffs) == len(want["handoffs"]), name + ": hand-off pairs")
    for h, w in zip(got.handoffs, want["handoffs"]):
        check(h.src == w["src"] and h.dst == w["dst"] and h.count == w["count"]
              and near(h.wait_ns.total, w["wait_ns"]["total"]) and near(h.gap_ns.p95, w["gap_ns"]["p95"]),
              "%s: hand-off %s -> %s" % (name, w["src"], w["dst"]))
    check(near(got.tail.kernel_end_ns, want["tail"]["kernel_end_ns"])
          and near(got.tail.tail_ns, want["tail"]["tail_ns"]) and got.tail.waves == want["tail"]["waves"],
          name + ": tail")
    for o, w in zip(got.outliers, want["outliers"]):
        check(o.name == w["name"] and o.cta == w["cta"] and near(o.duration_ns, w["duration_ns"]),
              "%s: outlier %s" % (name, w))
    check(len(got.outliers) == len(want["outliers"]) > 0, name + ": outliers")

a, b = os.path.join(data, "h200/diff/ws_gemm_run1.ctrace"), os.path.join(data, "h200/diff/ws_gemm_float4.ctrace")
want = trace_view_json(trace_view, "diff", a, b)
got = cutrace.diff(cutrace.open(a), b)
check(isinstance(got, cutrace.Diff) and got.kernel_a == want["kernel_a"], "diff: no Diff object, or its kernel")
check(len(got.rows) == len(want["rows"]) > 0, "diff: %d rows, trace-view %d" % (len(got.rows), len(want["rows"])))
for r, w in zip(got.rows, want["rows"]):
    check(r.kind == w["kind"] and r.name == w["name"] and r.a.count == w["a"]["count"]
          and r.b.count == w["b"]["count"] and near(r.a.ns.total, w["a"].get("total_ns", 0))
          and near(r.b.ns.p95, w["b"].get("p95_ns", 0)) and r.within_noise == w["within_noise"],
          "diff row %s %s" % (w["kind"], w["name"]))

finish("analyses and a comparison checked: %d failures" % len(failures))
