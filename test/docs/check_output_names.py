#!/usr/bin/python3
"""What README.md and docs/*.md say a traced program's files are named is what the runtime names
them.

usage: check_output_names.py PROBE DOC.md...
PROBE (test/docs/output_names_probe.cpp) writes a run file and its default renderings with the
runtime's own code and prints their names; with its program name and pid put back as `<program>`
and `<pid>`, they are the names a page may state. A page's statement of an output name is a name
with a placeholder (`<program>`, `<pid>`, `<kernel>`) and an output extension (`.ctrace`, `.html`,
`.json`, `.perfetto.json`), alternatives such as `debug/<x>.html|.json` included:
- a name with `<pid>` must be one the probe wrote (a folder before it and a `_N` suffix aside;
  a literal program name, `app.<pid>.ctrace`, stands for `<program>`);
- a name with `<kernel>` (the per-launch files of earlier versions) must stand in a paragraph
  that names `CUTRACE_PER_LAUNCH`, the switch that writes them.
"""
import os
import re
import subprocess
import sys
import tempfile

EXTENSION = r"(?:perfetto\.json|ctrace|html|json)"
# A name with a placeholder, then an extension, then alternatives (`|.json`, `/.json`).
NAME = re.compile(r"[\w./-]*<(?:program|pid|kernel)>[\w.<>\[\]-]*?\." + EXTENSION +
                  r"(?:[|/]\.?" + EXTENSION + r")*")


def written_names(probe):
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run([probe, folder], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split(" ", 1) for line in out.splitlines() if not line.startswith("file "))
    files = [line[5:] for line in out.splitlines() if line.startswith("file ")]
    stem = "%s.%s" % (fields["program"], fields["pid"])
    names = set()
    for f in files:
        if not f.startswith(stem + "."):
            sys.exit("FAIL: the runtime wrote %r, not under the stem <program>.<pid>" % f)
        names.add("<program>.<pid>" + f[len(stem):])
    return names


def expand(statement):
    """`debug/<program>.<pid>.ctrace|.html` -> the names it states, folder and alternatives apart."""
    first = re.match(r"(.*?)\.(" + EXTENSION + r")((?:[|/]\.?" + EXTENSION + r")*)$", statement)
    stem = first.group(1).rsplit("/", 1)[-1]
    extensions = [first.group(2)] + re.findall(EXTENSION, first.group(3))
    return stem, ["%s.%s" % (stem, e) for e in extensions]


def check_page(path, allowed):
    failures = 0
    text = open(path, encoding="utf-8").read()
    for paragraph in re.split(r"\n\s*\n", text):
        for match in NAME.finditer(paragraph):
            line = text[:text.find(paragraph)].count("\n") + paragraph[:match.start()].count("\n") + 1
            stem, names = expand(match.group(0))
            for name in names:
                if "<kernel>" in stem:
                    ok = "CUTRACE_PER_LAUNCH" in paragraph
                    why = "a per-launch name outside a paragraph naming CUTRACE_PER_LAUNCH"
                else:
                    canonical = re.sub(r"^[\w-]+\.<pid>", "<program>.<pid>", name)
                    canonical = re.sub(r"_(?:\d+|N|\[N\])\.", ".", canonical)
                    ok = canonical in allowed
                    why = "the runtime writes %s" % ", ".join(sorted(allowed))
                if not ok:
                    print("FAIL: %s:%d: states `%s`; %s" % (path, line, name, why))
                    failures += 1
    return failures


def main(probe, pages):
    allowed = written_names(probe)
    print("the runtime writes: %s" % ", ".join(sorted(allowed)))
    failures = sum(check_page(p, allowed) for p in pages)
    if failures:
        return 1
    print("PASS: every output name the pages state is one the runtime writes (%d pages)" % len(pages))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
