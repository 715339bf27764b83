#!/usr/bin/python3
"""Every `trace-view` and `trace-rewrite` command a document shows with its output prints exactly
that output.

usage: check_shown_output.py TRACE-VIEW [--trace-rewrite TRACE-REWRITE] DOC.md... [--update]
An example is a fenced block with no language whose first line is a command starting with
`trace-view` or `trace-rewrite` (or `$ ` and the tool), possibly piped into `head`/`tail`/`grep`,
and whose further lines are the output shown. The command runs in a scratch folder that links
every top-level entry of the repository (so `test/...` paths read the committed files and the
outputs it writes are thrown away), with TRACE-VIEW as `trace-view` and TRACE-REWRITE as
`trace-rewrite`. A `trace-view` example shows its stdout and must exit 0; a `trace-rewrite`
example shows what the terminal shows (stdout and stderr as printed) whatever its status, since
its diagnostics are what the documents show. The output must equal the shown lines (trailing
blanks aside; in `--explain` stage lines a duration `12.3 ms` matches any duration). A shown line
that is just `...` (indented or not) stands for any number of lines. Only commands that read the
committed files (trace-view: a path with test/data/; trace-rewrite: test/inputs/) are examples.
Blocks with only a command (no output) are not examples. --update rewrites the outputs of blocks
without `...` (review the diff).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Every fenced block, its language too: a block with a language (```sh) is no example, and its
# closing fence is not the opening of one.
BLOCK = re.compile(r"^```([^\n`]*)\n(.*?)^```\n", re.S | re.M)
# Only commands on the committed fixtures: a usage synopsis (`trace-view FILE.ctrace [...]`) is not
# an example.
COMMAND = re.compile(r"^(\$ )?(trace-view .*test/data/|trace-rewrite .*test/inputs/)")
# An --explain stage line's duration, right-aligned: it differs from run to run.
DURATION = re.compile(r" +[0-9]+\.[0-9] ms\b")


def normalized(lines, rewrite):
    lines = [line.rstrip() for line in lines]
    return [DURATION.sub(" <duration>", line) for line in lines] if rewrite else lines


def matches(shown, got):
    """shown may hold '...' lines, each standing for any run of lines of got."""
    if not shown:
        return not got
    if shown[0].strip() == "...":
        return any(matches(shown[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and shown[0] == got[0] and matches(shown[1:], got[1:])


def scratch_folder(root):
    """A folder linking each top-level entry of the repository: commands read the committed
    files and write their outputs where nothing is kept."""
    folder = tempfile.mkdtemp()
    for entry in os.listdir(root):
        if entry not in (".git", "build"):
            os.symlink(os.path.join(root, entry), os.path.join(folder, entry))
    return folder


def main(tools, docs, update):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    bindir = tempfile.mkdtemp()
    for name, path in tools.items():
        os.symlink(os.path.abspath(path), os.path.join(bindir, name))
    work = scratch_folder(root)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], LC_ALL="C")
    failures = examples = 0
    for path in docs:
        doc = open(path).read()
        edits = []
        for block in BLOCK.finditer(doc):
            if block.group(1).strip():
                continue
            lines = block.group(2).rstrip("\n").split("\n")
            if not COMMAND.match(lines[0]) or len(lines) < 2:
                continue
            command = lines[0][2:] if lines[0].startswith("$ ") else lines[0]
            rewrite = command.startswith("trace-rewrite")
            if rewrite and "trace-rewrite" not in tools:
                continue
            examples += 1
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                  stdout=subprocess.PIPE, text=True,
                                  stderr=subprocess.STDOUT if rewrite else subprocess.PIPE)
            # `| head` closes the pipe early: trace-view then ends on SIGPIPE, which is fine.
            if not rewrite and done.returncode not in (0, 141):
                print("FAIL: %s: `%s` exited %d: %s" % (path, command, done.returncode,
                                                      done.stderr.strip()[:300]))
                failures += 1
                continue
            got = normalized(done.stdout.rstrip("\n").split("\n"), rewrite)
            shown = normalized(lines[1:], rewrite)
            if matches(shown, got):
                print("ok: %s: %s" % (os.path.basename(path), command))
                continue
            if update and not any(line.strip() == "..." for line in shown):
                edits.append((block.start(2), block.end(2), lines[0] + "\n" + done.stdout))
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
    shutil.rmtree(work)  # links only: rmtree never follows them
    shutil.rmtree(bindir)
    print("%d examples, %d failures" % (examples, failures))
    if examples == 0:
        print("FAIL: no example found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--update"]
    tools = {}
    if "--trace-rewrite" in args[:-1]:
        at = args.index("--trace-rewrite")
        tools["trace-rewrite"] = args[at + 1]
        del args[at:at + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    tools["trace-view"] = args[0]
    sys.exit(main(tools, args[1:], "--update" in sys.argv[1:]))
