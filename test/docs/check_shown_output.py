#!/usr/bin/python3
"""Every `trace-view` command a document shows with its output prints exactly that output.

usage: check_shown_output.py TRACE-VIEW DOC.md... [--update]
An example is a fenced block with no language whose first line is a command starting with
`trace-view` (or `$ trace-view`), possibly piped into `head`/`tail`/`grep`, and whose further
lines are the output shown. The command runs in the repository root with TRACE-VIEW as
`trace-view`; its stdout must equal the shown lines (trailing blanks aside). A shown line that is
just `...` (indented or not) stands for any number of lines. Only commands that read the
committed fixtures (a path with test/data/) are examples. Blocks with only a command (no output) are not
examples. --update rewrites the outputs of blocks without `...` (review the diff).
"""
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```\n(.*?)^```\n", re.S | re.M)
# Only commands on the committed fixtures: a usage synopsis (`trace-view FILE.ctrace [...]`) is not
# an example.
COMMAND = re.compile(r"^(\$ )?trace-view .*test/data/")


def normalized(lines):
    return [line.rstrip() for line in lines]


def matches(shown, got):
    """shown may hold '...' lines, each standing for any run of lines of got."""
    if not shown:
        return not got
    if shown[0].strip() == "...":
        return any(matches(shown[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and shown[0] == got[0] and matches(shown[1:], got[1:])


def main(trace_view, docs, update):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    bindir = tempfile.mkdtemp()
    os.symlink(os.path.abspath(trace_view), os.path.join(bindir, "trace-view"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], LC_ALL="C")
    failures = examples = 0
    for path in docs:
        doc = open(path).read()
        edits = []
        for block in BLOCK.finditer(doc):
            lines = block.group(1).rstrip("\n").split("\n")
            if not COMMAND.match(lines[0]) or len(lines) < 2:
                continue
            command = lines[0][2:] if lines[0].startswith("$ ") else lines[0]
            examples += 1
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=root, env=env,
                                  capture_output=True, text=True)
            # `| head` closes the pipe early: trace-view then ends on SIGPIPE, which is fine.
            if done.returncode not in (0, 141):
                print("FAIL: %s: `%s` exited %d: %s" % (path, command, done.returncode,
                                                      done.stderr.strip()[:300]))
                failures += 1
                continue
            got = normalized(done.stdout.rstrip("\n").split("\n"))
            shown = normalized(lines[1:])
            if matches(shown, got):
                print("ok: %s: %s" % (os.path.basename(path), command))
                continue
            if update and not any(line.strip() == "..." for line in shown):
                edits.append((block.start(1), block.end(1), lines[0] + "\n" + done.stdout))
                print("updated: %s: %s" % (path, command))
                continue
            failures += 1
            print("FAIL: %s: `%s` prints something else than shown:" % (path, command))
            for i, (s, g) in enumerate(zip(shown + [""] * len(got), got + [""] * len(shown))):
                if s != g:
                    print("  first difference at output line %d:\n    shown: %s\n    got:   %s"
                          % (i + 1, s, g))
                    break
        if edits:
            for begin, end, text in reversed(edits):
                doc = doc[:begin] + text + doc[end:]
            open(path, "w").write(doc)
    print("%d examples, %d failures" % (examples, failures))
    if examples == 0:
        print("FAIL: no example found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--update"]
    if len(args) < 2:
        sys.exit(__doc__)
    sys.exit(main(args[0], args[1:], "--update" in sys.argv[1:]))
