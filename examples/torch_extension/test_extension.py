"""Runs examples/torch_extension's built modules in one process and checks their results: every
module given on the command line launches on the default stream, on a stream of its own and
inside a CUDA graph (captured once, replayed 3 times); then a forked child exits normally and
another with os._exit (a DataLoader worker's way), and the parent launches again. With
`--import-only` it imports the modules and launches nothing.

usage: python test_extension.py [--import-only] MODULE.so...
Prints one line per check; exit status 1 when a result is wrong."""
import importlib.util
import os
import sys

import torch

paths = [p for p in sys.argv[1:] if not p.startswith("--")]
modules = []
for path in paths:
    name = os.path.basename(path).split(".")[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    modules.append(module)
if "--import-only" in sys.argv:
    print("imported %d modules, launched nothing" % len(modules))
    sys.exit(0)

failed = False


def expect(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed |= not ok


n = 1 << 20
x = torch.arange(n, device="cuda", dtype=torch.float32)
for m in modules:
    name = m.__name__
    y = torch.ones(n, device="cuda")
    m.scale_add(x, y, 2.0)
    torch.cuda.synchronize()
    expect(torch.equal(y, 2 * x + 1), name + ": default stream")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        z = torch.ones(n, device="cuda")
        m.scale_add(x, z, 3.0)
    side.synchronize()
    expect(torch.equal(z, 3 * x + 1), name + ": a stream of its own")
    g_y = torch.zeros(n, device="cuda")
    warm = torch.cuda.Stream()
    with torch.cuda.stream(warm):
        m.scale_add(x, g_y, 0.0)  # warm-up on a side stream, as torch.cuda.graphs asks
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        m.scale_add(x, g_y, 1.0)
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    expect(torch.equal(g_y, 3 * x), name + ": a CUDA graph replayed 3 times")

for how in ("sys.exit", "os._exit"):
    pid = os.fork()
    if pid == 0:  # the child launches nothing (CUDA cannot run in a forked child)
        if how == "os._exit":
            os._exit(0)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    expect(status == 0, "a forked child ending with %s" % how)
y = torch.ones(n, device="cuda")
modules[0].scale_add(x, y, 1.0)
torch.cuda.synchronize()
expect(torch.equal(y, x + 1), "a launch after the children ended")
sys.exit(1 if failed else 0)
