"""`trace-view merge-torch` and cutrace.torch.merge place each recorded launch's in-kernel rows
under the profiler's slice of that kernel, on its stream's track (docs/torch.md). The profiler
trace is synthetic, built from a committed run's launches as torch.profiler exports them: a CPU
thread with operators and launch calls, a GPU stream with one kernel slice per launch (demangled
names with parameters, starting a little before the launch's first row), a slice of the same
kernel far from any launch, a launch whose kernel slice is missing and one whose slice starts
after its first row (its rows are moved into the slice). The output is decoded against
Perfetto's protos (protoc) and read back (pftrace_to_json).

usage: check_torch_merge.py TRACE-VIEW PFTRACE-TO-JSON PROTO-DIR RUN.ctrace
       (PYTHONPATH: the built package; protoc on PATH)"""
import json
import math
import os
import subprocess
import sys
import tempfile

import cutrace
import cutrace.torch

trace_view, to_json, proto_dir, run_path = sys.argv[1:5]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


work = tempfile.mkdtemp()
run = cutrace.open(run_path)
launches = run.launches()
origin = run.origin_ns
base = origin - origin % 1_000_000  # baseTimeNanoseconds: a whole ms before the run
MISSING, LATE = int(launches["sequence"][5]), int(launches["sequence"][7])
LATE_BY_NS = 3000
cpu, gpu = 4242, 0
events = [
    {"ph": "M", "name": "process_name", "pid": cpu, "tid": 0, "args": {"name": "python 4242"}},
    {"ph": "M", "name": "thread_name", "pid": cpu, "tid": cpu, "args": {"name": "thread 4242 (python)"}},
    {"ph": "M", "name": "process_name", "pid": gpu, "tid": 0, "args": {"name": "GPU 0"}},
    {"ph": "M", "name": "thread_name", "pid": gpu, "tid": 7, "args": {"name": "stream 7"}},
]
us = lambda ns: (ns - base) / 1000.0  # noqa: E731 (profiler's ts: µs since baseTimeNanoseconds)
first = origin + int(round(launches["begin_ns"].min()))
last = origin + int(round(launches["end_ns"].max()))
events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": cpu, "tid": cpu,
               "ts": us(first - 200_000), "dur": (last - first + 400_000) / 1000})
expected = {}  # sequence -> kernel slice [begin, end] in µs
for n, l in enumerate(launches):
    seq = int(l["sequence"])
    begin, end = origin + int(round(l["begin_ns"])), origin + int(round(l["end_ns"]))
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::" + l["kernel"], "pid": cpu, "tid": cpu,
                   "ts": us(begin - 60_000), "dur": 30.0})
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": cpu, "tid": cpu,
                   "ts": us(begin - 50_000), "dur": 5.0, "args": {"correlation": n}})
    if seq == MISSING:
        continue
    # The late slice is as long as the others, LATE_BY_NS later: its launch's rows move into it.
    late = LATE_BY_NS if seq == LATE else 0
    start = begin - 1500 + late + (1500 if late else 0)
    slice_us = (us(start), (end + 1200 + late - start) / 1000)
    expected[seq] = (slice_us[0], slice_us[0] + slice_us[1])
    events.append({"ph": "X", "cat": "kernel", "pid": gpu, "tid": 7, "ts": slice_us[0], "dur": slice_us[1],
                   "name": "void %s(float const*, float*, int)" % l["kernel"],
                   "args": {"device": 0, "stream": 7, "correlation": n, "grid": [1, 1, 1]}})
events.append({"ph": "X", "cat": "kernel", "pid": gpu, "tid": 7, "ts": us(last + 5_000_000), "dur": 40.0,
               "name": "void %s(float const*, float*, int)" % launches["kernel"][0], "args": {"device": 0}})
profile = os.path.join(work, "profiler.json")
with open(profile, "w") as f:
    json.dump({"schemaVersion": 1, "baseTimeNanoseconds": base, "traceEvents": events}, f)


def read_back(path, name):
    decoded = subprocess.run(["protoc", "--proto_path=" + proto_dir, "--decode=cutrace_check.Trace",
                              os.path.join(proto_dir, "trace.proto")], stdin=open(path, "rb"),
                             capture_output=True, text=True)
    bare = [line for line in decoded.stdout.split("\n") if line.strip()[:1].isdigit()]
    check(decoded.returncode == 0 and decoded.stdout.startswith("packet {") and not bare,
          "%s: protoc cannot decode it, or fields not in Perfetto's protos: %s %s"
          % (name, decoded.stderr[:200], bare[:3]))
    return json.loads(subprocess.run([to_json, path], capture_output=True, check=True, text=True).stdout)


def check_merged(trace, name):
    tracks = {t["uuid"]: t for t in trace["tracks"]}
    stream = [u for u, t in tracks.items() if t["name"] == "stream 7"]
    check(len(stream) == 1, name + ": no single 'stream 7' track")
    slots = {u for u, t in tracks.items() if t["name"].startswith("SM ")}
    check(slots and all(tracks[u]["parent"] == stream[0] for u in slots),
          name + ": the SM slot tracks are not under the stream's track")
    kernels = {e["args"]["cutrace_sequence"]: e["ts"] for e in trace["events"]
               if e["type"] == "B" and "cutrace_sequence" in e["args"]}
    check(sorted(kernels) == sorted(expected), "%s: launches placed %s, expected %s"
          % (name, sorted(kernels), sorted(expected)))
    # The export's zero is the profiler's earliest event, its ts rounded down to a whole µs.
    zero_us = math.floor(min(e["ts"] for e in events if "ts" in e))
    to_us = lambda ts: ts / 1000.0 + zero_us  # noqa: E731
    spans = sorted(expected.values())
    names = set(run.slices()["name"])
    inner = 0
    for e in trace["events"]:
        if e["track"] in slots:
            t = to_us(e["ts"])
            check(any(b - 0.001 <= t <= end + 0.001 for b, end in spans),
                  "%s: %s at %.3f µs lies outside every kernel slice" % (name, e["name"], t))
            inner += e["type"] == "B" and e["name"] in names
    want = sum(len(run.slices(s)) for s in expected)
    check(inner == want, "%s: %d in-kernel slices written, the placed launches hold %d" % (name, inner, want))


merged = os.path.join(work, "merged.pftrace")
cli = subprocess.run([trace_view, "merge-torch", profile, run_path, "-o", merged], capture_output=True, text=True)
check(cli.returncode == 0, "trace-view merge-torch failed: " + cli.stderr)
check("%d of %d launches placed" % (len(expected), len(launches)) in cli.stdout
      and "launch %d not placed" % MISSING in cli.stdout, "its report: " + cli.stdout)
check("moved at most %d ns" % LATE_BY_NS in cli.stdout, "the late slice's shift: " + cli.stdout)
if cli.returncode == 0:
    check_merged(read_back(merged, "trace-view merge-torch"), "trace-view merge-torch")

merged_py = os.path.join(work, "merged_py.pftrace")
report = cutrace.torch.merge(profile, run, merged_py)
check(len(report.matched) == len(expected) and [u[0] for u in report.unmatched] == [MISSING],
      "cutrace.torch.merge's report: %d placed, unmatched %s" % (len(report.matched), report.unmatched))
check(open(merged_py, "rb").read() == open(merged, "rb").read(), "cutrace.torch.merge wrote another trace")

# The profiler's clock off the run's by far more than the tolerance (kineto's own clock): the
# offset is found from the launches, and the same launches are placed.
OFF_BY_NS = 2_500_137_000
shifted = os.path.join(work, "profiler_shifted.json")
with open(shifted, "w") as f:
    json.dump({"schemaVersion": 1, "baseTimeNanoseconds": base,
               "traceEvents": [dict(e, ts=e["ts"] + OFF_BY_NS / 1000) if "ts" in e else e for e in events]}, f)
moved = cutrace.torch.merge(shifted, run, os.path.join(work, "shifted.pftrace"))
check(sorted(m.sequence for m in moved.matched) == sorted(expected)
      and [u[0] for u in moved.unmatched] == [MISSING],
      "clocks apart: %d placed, unmatched %s" % (len(moved.matched), moved.unmatched))
check(abs(moved.clock_offset_ns - OFF_BY_NS) <= 20_000 and report.clock_offset_ns == 0,
      "clock offsets: %.0f ns found for %d ns, %.0f ns where the clocks agree"
      % (moved.clock_offset_ns, OFF_BY_NS, report.clock_offset_ns))
cli_shifted = subprocess.run([trace_view, "merge-torch", shifted, run_path, "-o", os.path.join(work, "s.pftrace")],
                             capture_output=True, text=True)
check(cli_shifted.returncode == 0 and "the profiler's clock is 2500135.5 us ahead of" in cli_shifted.stdout,
      "trace-view merge-torch with clocks apart: " + cli_shifted.stdout + cli_shifted.stderr)

# A run not on the host clock cannot be placed: an error, and nothing written.
unaligned = os.path.join(os.path.dirname(run_path), "..", "ws_gemm.ctrace")
refused = os.path.join(work, "refused.pftrace")
bad = subprocess.run([trace_view, "merge-torch", profile, unaligned, "-o", refused], capture_output=True, text=True)
check(bad.returncode == 2 and "not on the host clock" in bad.stderr and not os.path.exists(refused),
      "a run not on the host clock: status %d, %s" % (bad.returncode, bad.stderr))

for f in failures[:20]:
    print("FAIL", f)
print("merge checked: %d failures" % len(failures))
sys.exit(1 if failures else 0)
