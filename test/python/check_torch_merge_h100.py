"""trace-view merge-torch and cutrace.torch.merge on what examples/torch_extension recorded on an
H100 (test/data/h100/torch: torch.profiler's export and the run file of the same process, one
warm-up launch outside the profiled window and 8 inside it). The profiler names the traced twin
(scale_add_kernel_cutrace_traced) and its clock was 35 µs behind the run's host clock: every
profiled launch is placed, the warm-up is not, the offset is reported and no launch is moved by
more than the alignment's bound after it.

usage: check_torch_merge_h100.py TRACE_VIEW DATA_DIR"""
import gzip
import lzma
import os
import subprocess
import sys
import tempfile

import cutrace
import cutrace.torch

trace_view, data = sys.argv[1:3]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


work = tempfile.mkdtemp()
profile, run_path = os.path.join(work, "profiler.json"), os.path.join(work, "profiled.ctrace")
with gzip.open(os.path.join(data, "profiler.json.gz")) as src, open(profile, "wb") as dst:
    dst.write(src.read())
with lzma.open(os.path.join(data, "profiled.ctrace.xz")) as src, open(run_path, "wb") as dst:
    dst.write(src.read())

cli = subprocess.run([trace_view, "merge-torch", profile, run_path, "-o", os.path.join(work, "m.pftrace")],
                     capture_output=True, text=True)
check(cli.returncode == 0 and "8 of 9 launches placed" in cli.stdout
      and "launch 0 not placed" in cli.stdout and "us behind the run's host clock" in cli.stdout,
      "trace-view merge-torch: status %d\n%s%s" % (cli.returncode, cli.stdout, cli.stderr))

report = cutrace.torch.merge(profile, cutrace.open(run_path), os.path.join(work, "py.pftrace"))
check(sorted(m.sequence for m in report.matched) == list(range(1, 9)),
      "placed %s, expected launches 1-8" % sorted(m.sequence for m in report.matched))
check([u[0] for u in report.unmatched] == [0], "unmatched %s, expected the warm-up (0)" % report.unmatched)
check(all(m.profiler_name.startswith("scale_add_kernel_cutrace_traced(") for m in report.matched),
      "the profiler's names: %s" % sorted({m.profiler_name for m in report.matched}))
check(-40_000 <= report.clock_offset_ns <= -30_000, "clock offset %.0f ns, recorded -35 µs" % report.clock_offset_ns)
check(report.max_shift_ns <= 1000, "a launch moved %.0f ns after the offset" % report.max_shift_ns)

for f in failures:
    print("FAIL", f)
print("H100 profile merged: %d failures" % len(failures))
sys.exit(1 if failures else 0)
