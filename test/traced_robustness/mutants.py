#!/usr/bin/env python3
"""Traced output robustness, as a property (docs/reliability.md, "Traced output robustness").

Every `trace-rewrite --traced` run that exits 0 must give code that compiles with nvcc. Mutants of
the annotated corpus (test/inputs/strip/X.cu, test/inputs/traced/X.cu) are made by damaging the
annotations (tokens deleted, duplicated, swapped or replaced inside argument lists, commas,
parentheses and quotes dropped, string prefixes added, lines split, annotations moved across
braces, ...). A mutant that strip accepts (`trace-rewrite X.cu` exits 0) is run through
`--traced`; the run must either

  * fail with a diagnostic: exit status != 0, a `file:line:col: error:` line on stderr, and no
    output file (traced source, map header, map JSON), or
  * exit 0 with output that `nvcc -arch=sm_90 -c` compiles.

A mutant whose damage strip does not remove (a macro name cut by a plain newline is no annotation)
breaks the program without annotations as well; when both the traced and the stripped file fail
to compile, it is counted apart and is not a failure: the tool leaves non-annotation code alone.

Mutant i of a run is a function of (seed, i) alone, so a failure is reproduced with
`--seed S --first i --count 1 --keep DIR`.

usage: mutants.py --rewrite BIN [--nvcc NVCC] [--nvcc-launcher CMD] [--include DIR] [--inputs DIR]
                  [--count N] [--seed S] [--first I] [--jobs J] [--work DIR] [--keep DIR]
Exit status: 0 when the property holds for every mutant, 1 when it does not, 2 on a usage error,
77 when there is no nvcc (ctest reports the test as skipped).
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MACROS = ["TRACE_GROUP", "TRACE_RANGE", "TRACE_RANGE_START", "TRACE_RANGE_END", "TRACE_RECORD",
          "TRACE_DAG"]

# Tokens a mutation may insert or substitute: literals of every kind, operators with side
# effects, unbalanced punctuation, comments, and expressions nvcc and Clang may judge differently.
POOL = ["x", "0", "1", "-1", "n", "t", "tok", '"s"', '""', 'L"w"', 'u"u16"', 'U"u32"', 'u8"v"',
        'R"(r)"', '"a" "b"', "'c'", "1.5f", "1e100", "0x7fffffff", "true", "nullptr", "i++", "++",
        "=", "+=", "(", ")", ",", "{", "}", ";", "[", "]", "?", ":", "::", "#", "\\", "/*c*/",
        "//c\n", "threadIdx.x", "blockIdx.x * 2", "sizeof(int)", "&x", "*", "->",
        "static_cast<int>(1)", "[]{ return 1; }()", 'TRACE_RECORD("n")', "auto", "return",
        "__syncthreads()", "(void)0", "1, 2", '"a\\n"', '"q\\"q"', '"*/"', '")cutrace_json"']

TOKEN_RE = re.compile(
    r"""(?P<ws>[ \t\r\n\f\v]+|\\\r?\n)
      |(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<raw>(?:u8|[uUL])?R"(?P<delim>[^ ()\\\t\n]{0,16})\((?:.|\n)*?\)(?P=delim)")
      |(?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
      |(?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
      |(?P<ident>[A-Za-z_][A-Za-z_0-9]*)
      |(?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*)
      |(?P<punct>::|->|\+\+|--|<<=|>>=|<<|>>|[-+*/%&|^!=<>]=|&&|\|\||\.\.\.|.)
    """, re.VERBOSE | re.DOTALL)


def tokens(text):
    """(kind, begin, end) of every code token; comments and whitespace dropped, `#` lines kept."""
    out = []
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup if m.lastgroup != "delim" else "raw"
        if kind in ("ws", "comment"):
            continue
        out.append((kind, m.start(), m.end()))
    return out


class Annotation:
    """One annotation call in the text: token indices of the macro, its '(' and its ')'."""

    def __init__(self, toks, macro, close):
        self.toks, self.macro, self.open, self.close = toks, macro, macro + 1, close

    def arg_tokens(self):
        return list(range(self.open + 1, self.close))

    def statement_end(self, text):
        """Offset just past the ';' after the call, or past the ')' when there is none."""
        after = self.close + 1
        if after < len(self.toks) and text[self.toks[after][1]:self.toks[after][2]] == ";":
            return self.toks[after][2]
        return self.toks[self.close][2]

    def statement_begin(self, text):
        """For `auto tok = TRACE_RANGE_START(...)`, the `auto`; otherwise the macro name."""
        i = self.macro
        if text[self.toks[i][1]:self.toks[i][2]] == "TRACE_RANGE_START" and i >= 3:
            spelled = [text[b:e] for _, b, e in self.toks[i - 3:i]]
            if spelled[0] == "auto" and spelled[2] == "=":
                return self.toks[i - 3][1]
        return self.toks[i][1]


def annotations(text, toks):
    found = []
    for i, (kind, b, e) in enumerate(toks):
        if kind != "ident" or text[b:e] not in MACROS:
            continue
        if i + 1 >= len(toks) or text[toks[i + 1][1]:toks[i + 1][2]] != "(":
            continue
        depth = 0
        for j in range(i + 1, len(toks)):
            t = text[toks[j][1]:toks[j][2]]
            depth += t == "("
            depth -= t == ")"
            if depth == 0:
                found.append(Annotation(toks, i, j))
                break
    return found


def splice(text, begin, end, new):
    return text[:begin] + new + text[end:]


# Each mutation takes (text, toks, annotation, rng) and returns the new text or None.

def m_delete_token(text, toks, a, rng):
    args = a.arg_tokens()
    if not args:
        return None
    _, b, e = toks[rng.choice(args)]
    return splice(text, b, e, "")


def m_duplicate_token(text, toks, a, rng):
    args = a.arg_tokens()
    if not args:
        return None
    _, b, e = toks[rng.choice(args)]
    return splice(text, e, e, " " + text[b:e])


def m_swap_tokens(text, toks, a, rng):
    args = a.arg_tokens()
    if len(args) < 2:
        return None
    i, j = sorted(rng.sample(args, 2))
    (_, bi, ei), (_, bj, ej) = toks[i], toks[j]
    return text[:bi] + text[bj:ej] + text[ei:bj] + text[bi:ei] + text[ej:]


def m_drop_punct(which):
    def mutate(text, toks, a, rng):
        idx = [i for i in range(a.open, a.close + 1) if text[toks[i][1]:toks[i][2]] in which]
        if not idx:
            return None
        _, b, e = toks[rng.choice(idx)]
        return splice(text, b, e, "")
    return mutate


def m_add_comma(text, toks, a, rng):
    i = rng.randint(a.open, a.close)
    pos = toks[i][2] if rng.random() < 0.5 else toks[i][1]
    return splice(text, pos, pos, rng.choice([",", ", ", ",,"]))


def m_drop_quote(text, toks, a, rng):
    idx = [i for i in a.arg_tokens() if toks[i][0] in ("string", "raw")]
    if not idx:
        return None
    _, b, e = toks[rng.choice(idx)]
    pos = rng.choice([text.index('"', b), e - 1])
    return splice(text, pos, pos + 1, "")


def m_prefix_literal(text, toks, a, rng):
    idx = [i for i in a.arg_tokens() if toks[i][0] == "string"]
    if not idx:
        return None
    _, b, e = toks[rng.choice(idx)]
    prefix = rng.choice(["L", "u", "U", "u8", "R", "LR", "u8R"])
    body = text[b:e]
    if "R" in prefix and rng.random() < 0.7:  # a well-formed raw literal
        return splice(text, b, e, prefix + '"(' + body[body.index('"') + 1:-1] + ')"')
    return splice(text, b, b, prefix)


def m_split_line(text, toks, a, rng):
    b, e = toks[a.macro][1], toks[a.close][2]
    pos = rng.randint(b + 1, e - 1)
    return splice(text, pos, pos, rng.choice(["\\\n", "\\\r\n", "\\ \n", "\n", "\n#define Q 1\n"]))


def m_move_across_brace(text, toks, a, rng):
    begin, end = a.statement_begin(text), a.statement_end(text)
    stmt = text[begin:end]
    braces = [(b, e) for k, b, e in toks if text[b:e] in "{}" and (e <= begin or b >= end)]
    if not braces:
        return None
    # The brace nearest before or after the annotation is the interesting one.
    before = [x for x in braces if x[1] <= begin][-2:]
    after = [x for x in braces if x[0] >= end][:2]
    b, e = rng.choice(before + after)
    pos = rng.choice([b, e])
    without = splice(text, begin, end, "")
    if pos >= end:
        pos -= end - begin
    return splice(without, pos, pos, " " + stmt + " ")


def m_replace_token(text, toks, a, rng):
    args = a.arg_tokens()
    if not args:
        return None
    _, b, e = toks[rng.choice(args)]
    return splice(text, b, e, rng.choice(POOL))


def m_insert_token(text, toks, a, rng):
    i = rng.randint(a.open, a.close)
    pos = toks[i][1] if rng.random() < 0.5 else toks[i][2]
    return splice(text, pos, pos, " " + rng.choice(POOL) + " ")


def m_rename_macro(text, toks, a, rng):
    _, b, e = toks[a.macro]
    return splice(text, b, e, rng.choice([m for m in MACROS if m != text[b:e]]))


def m_duplicate_statement(text, toks, a, rng):
    begin, end = a.statement_begin(text), a.statement_end(text)
    return splice(text, end, end, " " + text[begin:end])


def m_delete_around(text, toks, a, rng):
    """Damage the statement around the call: its ';', or the `auto tok =` of a RANGE_START."""
    idx = [a.close + 1] if a.close + 1 < len(toks) else []
    if a.statement_begin(text) != toks[a.macro][1]:
        idx += [a.macro - 3, a.macro - 2, a.macro - 1]
    if not idx:
        return None
    _, b, e = toks[rng.choice(idx)]
    return splice(text, b, e, "")


MUTATIONS = [m_delete_token, m_duplicate_token, m_swap_tokens, m_drop_punct({","}),
             m_drop_punct({"(", ")"}), m_add_comma, m_drop_quote, m_prefix_literal, m_split_line,
             m_move_across_brace, m_replace_token, m_replace_token, m_insert_token,
             m_rename_macro, m_duplicate_statement, m_delete_around]


def corpus(inputs):
    files = sorted(p for d in ("strip", "traced") for p in (inputs / d).glob("*.cu")
                   if not p.name.endswith((".plain.cu", ".traced.cu")))
    return [(p, p.read_text(encoding="utf-8", errors="surrogateescape")) for p in files]


def make_mutant(sources, seed, index):
    """Mutant `index` of run `seed`: (source path, text), or None if nothing could be mutated."""
    rng = random.Random(f"{seed}:{index}")
    path, text = rng.choice(sources)
    original = text
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        toks = tokens(text)
        found = annotations(text, toks)
        if not found:
            break
        a = rng.choice(found)
        for _ in range(8):  # some mutations do not apply to every annotation
            mutated = rng.choice(MUTATIONS)(text, toks, a, rng)
            if mutated is not None and mutated != text:
                text = mutated
                break
    return None if text == original else (path, text)


def run(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def nvcc_flags(text):
    first = text.split("\n", 1)[0]
    m = re.match(r"\s*//\s*cutrace-test-flags:(.*)", first)
    return m.group(1).split() if m else []


LOCATED_ERROR = re.compile(r"^[^\n]*:[0-9]+:[0-9]+: error: ", re.MULTILINE)


def check(mutant, args, work):
    """Runs one mutant; returns (verdict, detail). Verdicts: 'strip-rejects' (not part of the
    sample), 'diagnostic', 'compiled', 'plain-does-not-compile' (exit 0, and neither the traced
    nor the stripped file compiles), and the failures 'silent-failure', 'wrote-on-failure',
    'does-not-compile' (exit 0, the stripped file compiles, the traced one does not)."""
    index, (source, text) = mutant
    d = work / f"m{index:05d}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    src = d / source.name
    src.write_text(text, encoding="utf-8", errors="surrogateescape")
    # Headers an input includes sit beside it.
    for header in list(source.parent.glob("*.h")) + list(source.parent.glob("*.cuh")):
        shutil.copy(header, d / header.name)
    rc, _, err = run([args.rewrite, src.name, "-o", "stripped.cu"], d)
    if rc != 0:
        return "strip-rejects", err
    out = d / "out"
    out.mkdir()
    traced = out / (source.stem + ".traced.cu")
    rc, _, err = run([args.rewrite, "--traced", src.name, "-o", str(traced)], d)
    if rc != 0:
        written = sorted(p.name for p in out.iterdir())
        if written:
            return "wrote-on-failure", f"exit {rc}, wrote {written}\n{err}"
        if not LOCATED_ERROR.search(err):
            return "silent-failure", f"exit {rc} without a file:line:col: error: line\n{err}"
        return "diagnostic", err
    flags = ["-std=c++17"] + [f for f in nvcc_flags(text) if f != "-std=c++17"]
    nvcc = [*args.nvcc_launcher.split(), args.nvcc, "-arch=sm_90", "-c", *flags, "-I",
            str(args.include)]
    rc, _, err = run(nvcc + ["-I", str(out), "-I", str(d), str(traced), "-o", str(out / "traced.o")],
                     d)
    if rc == 0:
        return "compiled", ""
    # Damage strip does not remove (a name split so it is no longer an annotation) breaks the
    # plain program too: no rewrite can make that compile, and the tool leaves such code alone.
    if run(nvcc + ["stripped.cu", "-o", "stripped.o"], d)[0] != 0:
        return "plain-does-not-compile", err
    return "does-not-compile", err


def main():
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rewrite", required=True, help="trace-rewrite binary")
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    ap.add_argument("--nvcc-launcher", default="",
                    help="command put before nvcc, e.g. ccache (the mutants are seeded: the same "
                         "sources from run to run)")
    ap.add_argument("--include", type=Path, default=here.parent.parent / "runtime" / "include")
    ap.add_argument("--inputs", type=Path, default=here.parent / "inputs")
    ap.add_argument("--count", type=int, default=40, help="mutants that pass strip to check")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--first", type=int, default=0, help="index of the first mutant")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    ap.add_argument("--keep", type=Path, help="copy every failing mutant's folder here")
    args = ap.parse_args()
    args.rewrite = str(Path(args.rewrite).resolve())
    args.include = args.include.resolve()
    if shutil.which(args.nvcc) is None:
        print(f"skipped: no nvcc at {args.nvcc}", file=sys.stderr)
        return 77
    sources = corpus(args.inputs)
    if not sources:
        print(f"no annotated inputs under {args.inputs}", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="cutrace-mutants."))
    work = work.resolve()

    counts = {}
    failures = []
    seen = set()
    index, checked = args.first, 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        while checked < args.count:
            batch = []
            while len(batch) < args.count - checked:
                m = make_mutant(sources, args.seed, index)
                index += 1
                if m is None:
                    continue
                key = hashlib.sha1(m[1].encode("utf-8", "surrogateescape")).hexdigest()
                if key not in seen:
                    seen.add(key)
                    batch.append((index - 1, m))
            for mutant, (verdict, detail) in zip(batch, pool.map(lambda m: check(m, args, work),
                                                                   batch)):
                if verdict != "strip-rejects":
                    if checked == args.count:
                        continue
                    checked += 1
                counts[verdict] = counts.get(verdict, 0) + 1
                if verdict in ("silent-failure", "wrote-on-failure", "does-not-compile"):
                    failures.append((mutant, verdict, detail))
                    if args.keep:
                        shutil.copytree(work / f"m{mutant[0]:05d}",
                                        args.keep / f"m{mutant[0]:05d}", dirs_exist_ok=True)

    for (i, (source, _)), verdict, detail in failures:
        print(f"FAIL mutant {i} of {source.name} (seed {args.seed}): {verdict}")
        print("  " + "\n  ".join(detail.strip().splitlines()[:12]))
    print(f"seed {args.seed}, mutants {args.first}..{index - 1}: "
          f"{counts.get('strip-rejects', 0)} rejected by strip (not counted); "
          f"{checked} checked: {counts.get('diagnostic', 0)} failed with a diagnostic, "
          f"{counts.get('compiled', 0)} compiled, "
          f"{counts.get('plain-does-not-compile', 0)} damaged the code outside annotations "
          f"(stripped file does not compile either), "
          f"{counts.get('does-not-compile', 0)} exit 0 not compiling, "
          f"{counts.get('silent-failure', 0)} failed without a located error, "
          f"{counts.get('wrote-on-failure', 0)} wrote files on failure")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
