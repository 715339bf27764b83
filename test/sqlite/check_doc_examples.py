#!/usr/bin/python3
"""The examples of docs/analysis.md, section "SQL and pandas", run as written.

usage: check_doc_examples.py TRACE-VIEW DOC.md [--update]
In the section, a ```sh or ```python block followed by a ```text block is an example: it is run
(sh by bash, python by /usr/bin/python3) in a fresh directory where `trace-view` is TRACE-VIEW and
test/ is the repository's, and its stdout must equal the text block (trailing blanks aside). A
```sh block with no output block is set-up (the exports) and must succeed. --update writes the
outputs into the document instead (review the diff).
"""
import os
import re
import subprocess
import sys
import tempfile

HEADING = "## SQL and pandas"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def section_bounds(doc):
    begin = doc.index(HEADING + "\n")
    end = doc.find("\n## ", begin + len(HEADING))
    return begin, len(doc) if end < 0 else end + 1


def normalized(text):
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n")) + "\n"


def run(lang, code, cwd, env):
    cmd = ["bash", "-euo", "pipefail", "-c", code] if lang == "sh" else ["/usr/bin/python3", "-c", code]
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("status %d from:\n%s\nstderr:\n%s" % (done.returncode, code, done.stderr))
    return done.stdout


def main(trace_view, doc_path, update=False):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    doc = open(doc_path).read()
    begin, end = section_bounds(doc)
    section = doc[begin:end]
    blocks = list(BLOCK.finditer(section))
    work = tempfile.mkdtemp()
    os.mkdir(os.path.join(work, "bin"))
    os.symlink(os.path.abspath(trace_view), os.path.join(work, "bin", "trace-view"))
    os.symlink(os.path.join(root, "test"), os.path.join(work, "test"))
    env = dict(os.environ, PATH=os.path.join(work, "bin") + os.pathsep + os.environ["PATH"])

    failures, examples, replacements = 0, 0, []
    for i, block in enumerate(blocks):
        lang, code = block.group(1), block.group(2)
        if lang not in ("sh", "python"):
            continue
        follows = blocks[i + 1] if i + 1 < len(blocks) else None
        is_example = follows is not None and follows.group(1) == "text"
        try:
            out = run(lang, code, work, env)
        except RuntimeError as e:
            print("FAIL SqliteDoc.ExamplesPrintWhatTheDocShows: %s" % e)
            failures += 1
            continue
        if not is_example:
            continue
        examples += 1
        if update:
            replacements.append((follows.start(2), follows.end(2), normalized(out)))
        elif normalized(out) != normalized(follows.group(2)):
            print("FAIL SqliteDoc.ExamplesPrintWhatTheDocShows:\n%s\nprints\n%s\nthe document shows\n%s"
                  % (code, out, follows.group(2)))
            failures += 1
    if update:
        for start, stop, text in reversed(replacements):
            section = section[:start] + text + section[stop:]
        current = open(doc_path).read()  # others may have edited other sections meanwhile
        b, e = section_bounds(current)
        open(doc_path, "w").write(current[:b] + section + current[e:])
        print("updated %d outputs in %s" % (len(replacements), doc_path))
        return 0
    if examples < 5:
        print("FAIL SqliteDoc.ExamplesPrintWhatTheDocShows: %d examples found, want 5" % examples)
        failures += 1
    if not failures:
        print("ok   SqliteDoc.ExamplesPrintWhatTheDocShows (%d examples)" % examples)
    subprocess.run(["rm", "-rf", work])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], "--update" in sys.argv[3:]))
