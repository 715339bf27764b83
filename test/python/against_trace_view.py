"""What the package's checks share: failures gathered as they come, float comparison, and
trace-view's JSON for the same input."""
import json
import math
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def close(a, b, abs_tol=1e-6):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=abs_tol)


def trace_view_json(trace_view, *args):
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.json")
        subprocess.run([trace_view, *args, "--json", out], check=True, capture_output=True)
        with open(out) as f:
            return json.load(f)


def finish(summary):
    """Prints the first failures and the summary; exits 1 when anything failed."""
    for f in failures[:20]:
        print("FAIL", f)
    print(summary)
    sys.exit(1 if failures else 0)
