#!/usr/bin/env python3
"""Writes a copy of examples/hopper_pipeline/hopper_pipeline.cu whose two k-loops (the producer's
and the consumers') each stand twice, under an `if` on a per-tile condition: the annotated loop
where the condition holds, the same loop with its TRACE_RANGE lines deleted elsewhere. Rewritten
with trace-rewrite --traced, the twin runs the original k-loop, with no marker in it, for the tiles
not sampled: what recording a sample of the tiles would cost if the rewriter versioned the loop.

    recorder9_versions.py <source> <copy> <condition on the tile's index `nth`>
e.g. `nth % 8 == 0` (every 8th tile of each CTA), `m < 0` (none), `true` (all).
"""
import re
import sys


def loop_end(text, start):
    """The index just past the `}` closing the loop statement that starts at `start`."""
    depth, i = 0, text.index("{", start)
    while True:
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def versioned(text, nth, cond):
    out, pos, count = [], 0, 0
    for m in re.finditer(r"for \(int kt = 0; kt < k_tiles; \+\+kt, \+\+stage\) \{", text):
        end = loop_end(text, m.start())
        loop = text[m.start():end]
        plain = re.sub(r"\n[ \t]*TRACE_RANGE\([^;]*\);", "", loop)
        if plain == loop:
            sys.exit("recorder9_versions.py: a k-loop without TRACE_RANGE")
        out += [text[pos:m.start()], f"if ({cond.replace('nth', nth)}) ", "{\n", loop,
                "\n} else {\n", plain, "\n}"]
        pos, count = end, count + 1
    if count != 1:
        sys.exit(f"recorder9_versions.py: {count} k-loops found in a role, 1 expected")
    return "".join(out + [text[pos:]])


def main():
    src, dst, cond = sys.argv[1:4]
    text = open(src).read()
    # The producer counts tiles by `tile` (blockIdx.x + i * gridDim.x), the consumers by `local`
    # (i): the same i in both roles, so both record the same tiles.
    producer, consumer = text.split("TRACE_GROUPS(\"consumer\"", 1)
    producer = versioned(producer, "((tile - int(blockIdx.x)) / int(gridDim.x))", cond)
    consumer = versioned(consumer, "local", cond)
    open(dst, "w").write(producer + "TRACE_GROUPS(\"consumer\"" + consumer)


main()
