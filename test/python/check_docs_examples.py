"""Every `python -c` example docs/python.md shows with its output prints exactly that output.

usage: check_docs_examples.py PYTHON DOC.md REPOSITORY   (PYTHONPATH: the built package)
An example is a fenced block with no language whose first line is `python -c "..."` reading a
committed file (test/data/), and whose further lines are the output shown. It runs from the
repository's root with PYTHON as `python`."""
import re
import shlex
import subprocess
import sys

python, doc, root = sys.argv[1:4]
BLOCK = re.compile(r"^```([^\n`]*)\n(.*?)^```\n", re.S | re.M)

examples = failures = 0
with open(doc) as f:
    text = f.read()
for language, body in BLOCK.findall(text):
    lines = body.rstrip("\n").split("\n")
    if language or not lines[0].startswith("python -c ") or "test/data/" not in lines[0]:
        continue
    examples += 1
    command = shlex.split(lines[0])
    got = subprocess.run([python] + command[1:], cwd=root, capture_output=True, text=True)
    shown = [line.rstrip() for line in lines[1:]]
    printed = [line.rstrip() for line in got.stdout.rstrip("\n").split("\n")]
    if got.returncode != 0 or printed != shown:
        failures += 1
        print("FAIL %s\n  shown:\n    %s\n  printed (status %d):\n    %s\n%s" % (
            lines[0], "\n    ".join(shown), got.returncode, "\n    ".join(printed), got.stderr))
print("%d examples, %d failures" % (examples, failures))
sys.exit(1 if failures or examples == 0 else 0)
