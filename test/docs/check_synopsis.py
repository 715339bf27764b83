#!/usr/bin/python3
"""The synopsis a document shows for a tool lists the options its --help usage lists, in order.

usage: check_synopsis.py TOOL DOC.md...
The usage is the text of `TOOL --help` from its first line up to the first blank line. A
document's synopsis is the fenced block whose first line starts with the usage's first two words
(`trace-view FILE.ctrace...`); each document given must hold one. Options are the `--name` or
`-x` words in brackets, compared as lists.
"""
import re
import subprocess
import sys

OPTION = re.compile(r"\[(--?[a-z][a-z0-9-]*)")


def options(text):
    return OPTION.findall(text)


def main(tool, docs):
    help_text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    usage = help_text.split("\n\n")[0]
    words = usage.split()
    head = " ".join(words[1:3]) if words[0].lower().startswith("usage") else " ".join(words[:2])
    want = options(usage)
    if not want:
        print("FAIL: `%s --help` lists no option in its usage" % tool)
        return 1
    failures = 0
    for path in docs:
        blocks = re.findall(r"^```\n(" + re.escape(head) + r".*?)^```\n", open(path).read(),
                            re.S | re.M)
        if not blocks:
            print("FAIL: %s shows no synopsis starting `%s`" % (path, head))
            failures += 1
            continue
        # The synopsis is the block's lines up to its first subcommand line.
        synopsis = blocks[0].split("\n" + words[1 if words[0].lower().startswith("usage") else 0]
                                   + " ")[0]
        got = options(synopsis)
        if got != want:
            print("FAIL: %s: the synopsis lists %s; --help lists %s" % (path, got, want))
            failures += 1
        else:
            print("ok: %s lists the %d options of --help" % (path, len(want)))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
