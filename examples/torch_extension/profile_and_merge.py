"""One timeline with torch.profiler, on the GPU machine: `record` runs the traced module under
torch.profiler (8 launches inside the profiled window) and exports its Chrome trace; after that
process has ended (its run file is then complete), `merge` writes the merged Perfetto trace and
prints the report.

usage: python profile_and_merge.py record MODULE.so PROFILER.json
       python profile_and_merge.py merge PROFILER.json RUN.ctrace OUT.pftrace"""
import importlib.util
import os
import sys

if sys.argv[1] == "record":
    import torch
    from torch.profiler import ProfilerActivity, profile

    path = sys.argv[2]
    spec = importlib.util.spec_from_file_location(os.path.basename(path).split(".")[0], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    x = torch.arange(1 << 22, device="cuda", dtype=torch.float32)
    y = torch.ones_like(x)
    m.scale_add(x, y, 1.0)  # warm-up, outside the window
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(8):
            m.scale_add(x, y, float(i))
            torch.relu_(y)
        torch.cuda.synchronize()
    prof.export_chrome_trace(sys.argv[3])
else:
    import cutrace
    import cutrace.torch

    report = cutrace.torch.merge(sys.argv[2], cutrace.open(sys.argv[3]), sys.argv[4])
    print("%d profiler events (%d kernels); %d launches placed, moved at most %.0f ns"
          % (report.profiler_events, report.profiler_kernels, len(report.matched), report.max_shift_ns))
    if report.clock_offset_ns:
        print("the profiler's clock is %.1f us off the run's: lined up from the launches" % (report.clock_offset_ns / 1e3))
    for m in report.matched:
        print("  launch %d %s -> %r (pid %d, stream %d), shift %.0f ns"
              % (m.sequence, m.kernel, m.profiler_name, m.pid, m.tid, m.shift_ns))
    for seq, why in report.unmatched:
        print("  launch %d not placed: %s" % (seq, why))
    sys.exit(0 if len(report.matched) >= 8 else 1)
