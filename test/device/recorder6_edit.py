#!/usr/bin/env python3
"""Probe copies of a `trace-rewrite --traced` output for the sixth recorder run (docs/recorder-designs.md): where scoped range X ends and range Y begins with no code between, rewrite the pair
by hand the way a rewriter change could, with the recorder's public calls (Group::stamp,
Group::range_ended, the Range constructor that takes its begin):

  a   "shared boundary clock": one clock read is X's end and Y's begin;
  b   "stores after the release": X's two clocks are kept in registers and its RANGE record is
      stored where Y ends (after the stage's release in the hopper consumer, after the TMA issue
      in its producer), just before Y's own record;
  ab  both: one read at the boundary, X's record stored where Y ends.

The records are the same as the generated code's (X's RANGE, then Y's, in that order in the row);
with `a` X's end and Y's begin are one timestamp. Two shapes of pair are recognised:

  blocks   { Range X(...); ... }  { Range Y(...); ... }     (the hopper consumer's wait/compute,
                                                            the SGEMM's load/math)
  if       if (COND) { Range X(...); ... }  Range Y(...);   (the hopper producer's
                                                            wait_empty/load: X's record is stored
                                                            under COND, evaluated again where it
                                                            is stored, so COND must not change
                                                            in between)

    recorder6_edit.py <mode> <traced.cu> <out.cu> <x>:<y> [<x>:<y> ...]
"""
import re
import sys


def skip_comment(text, i):
    if text.startswith("//", i):
        return text.index("\n", i)
    if text.startswith("/*", i):
        return text.index("*/", i) + 1
    return i


def block_end(text, pos):
    """The index of the '}' that closes the block `pos` is in."""
    depth, i = 0, pos
    while True:
        i = skip_comment(text, i)
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1


def block_start(text, pos):
    """The index of the '{' that opens the block `pos` is in (no comment with braces between)."""
    depth, i = 0, pos - 1
    while True:
        c = text[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                return i
            depth -= 1
        i -= 1


def declaration(text, site):
    pattern = (r"cutrace::Range __cutrace_range_%s\((?P<g>[\w:.<>()]+), (?P<site>[^,]+), "
               r"(?P<payload>.+?)\);" % site)
    found = list(re.finditer(pattern, text))
    if len(found) != 1:
        sys.exit(f"recorder6_edit.py: {len(found)} declarations of range {site}, want 1")
    return found[0]


def pair(text, x, y, mode):
    """The edits (position, characters removed, text inserted) for ranges x then y."""
    dx, dy = declaration(text, x), declaration(text, y)
    g, sx, px = dx.group("g"), dx.group("site"), dx.group("payload")
    gy, sy, py = dy.group("g"), dy.group("site"), dy.group("payload")
    if gy != g:
        sys.exit(f"recorder6_edit.py: ranges {x} and {y} are in different groups")
    ex = block_end(text, dx.end())
    bx = block_start(text, dx.start())
    after = text[ex + 1:dy.start()]
    if re.fullmatch(r"\s*\{\s*", after):
        shape, cond, outer = "blocks", "true", bx
    elif re.fullmatch(r"\s*", after):
        m = re.search(r"if \((?P<cond>[^{}]*)\)\s*$", text[:bx])
        if not m:
            sys.exit(f"recorder6_edit.py: range {x}'s block is not an if's body")
        shape, cond, outer = "if", m.group("cond"), m.start()
    else:
        sys.exit(f"recorder6_edit.py: code between range {x}'s end and range {y}'s begin: "
                 f"{after.strip()[:60]!r}")
    ey = block_end(text, dy.end())
    b, e, p = f"__cutrace_begin_{x}", f"__cutrace_end_{x}", f"__cutrace_payload_{x}"
    zero = " = 0" if shape == "if" else ""
    edits = [(outer, 0, f"uint32_t {b}{zero}, {e}{zero}; int32_t {p}{zero}; "),
             (dx.start(), dx.end() - dx.start(), f"{b} = {g}.stamp(); {p} = {px};")]
    store = f"{g}.range_ended({sx}, {b}, {e}, {p}, {cond});"
    y_with_begin = f"cutrace::Range __cutrace_range_{y}({g}, {sy}, {py}, {e});"
    if shape == "blocks":
        edits.append((ex, 0, f"{e} = {g}.stamp(); " + (store if mode == "a" else "")))
        if mode in ("a", "ab"):
            edits.append((dy.start(), dy.end() - dy.start(), y_with_begin))
    else:  # the end is read after the if, where Y begins (a, ab), or at the if body's end (b)
        if mode == "b":
            edits.append((ex, 0, f"{e} = {g}.stamp(); "))
        else:
            edits.append((dy.start(), dy.end() - dy.start(),
                          f"{e} = {g}.stamp(); " + (store + " " if mode == "a" else "") + y_with_begin))
    if mode in ("b", "ab"):
        edits.append((ey, 0, store + " "))
    return edits


def main():
    mode, src, dst, pairs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if mode not in ("a", "b", "ab") or not pairs:
        sys.exit(__doc__)
    text = open(src).read()
    edits = []
    for xy in pairs:
        x, y = xy.split(":")
        edits += pair(text, x, y, mode)
    for pos, removed, inserted in sorted(edits, key=lambda t: t[0], reverse=True):
        text = text[:pos] + inserted + text[pos + removed:]
    open(dst, "w").write(text)


if __name__ == "__main__":
    main()
