#!/usr/bin/env python3
"""Annotates every __global__ kernel of a CUDA file, the way a user would by hand.

For each kernel definition: TRACE_GROUP("k", 0); and TRACE_RANGE("body"); at the top of its body,
and TRACE_RECORD("iter"); as the first statement of each braced loop body in it (brace-less loops
and loops inside lambdas or local classes are skipped and counted). Adds
#include <cutrace/trace.h> as the first line. Every insertion is a line of its own, or sits
right after the loop's `{` when code follows on that line, so strip must give back the original
byte for byte.

A kernel that cannot be annotated (defined inside a macro, unbalanced braces across #if
branches) is a failure of the file, never skipped silently.

usage: annotate.py IN.cu OUT.cu      prints one TSV row: path, kernels, annotated, declarations,
                                     loops annotated, loops skipped, status, reason
       annotate.py --header          prints the TSV header
"""
import re
import sys

COLUMNS = ["file", "kernels", "annotated", "declarations", "loops", "loops_skipped", "status",
           "reason"]


class Token:
    __slots__ = ("text", "start", "end")

    def __init__(self, text, start, end):
        self.text, self.start, self.end = text, start, end


IDENT = re.compile(r"[A-Za-z_]\w*")
NUMBER = re.compile(r"\.?\d(?:[\w.]|[eEpP][+-])*")
PUNCT3 = ("<<=", ">>=", "...", "->*", "<=>")
PUNCT2 = ("::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
          "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*")


def tokenize(text):
    """Tokens outside comments and preprocessor lines; strings are one token each.

    Returns (tokens, directives) where directives are (start, end, text) of preprocessor lines.
    """
    tokens, directives = [], []
    i, n = 0, len(text)
    line_start = True  # only whitespace since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            i += 2
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 2 if text.startswith("\\\n", i) else 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if c == "#" and line_start:
            start = i
            while i < n and text[i] != "\n":
                if text.startswith("\\\n", i) or text.startswith("\\\r\n", i):
                    i += 2 if text[i + 1] == "\n" else 3
                elif text.startswith("/*", i):
                    end = text.find("*/", i + 2)
                    i = n if end < 0 else end + 2
                else:
                    i += 1
            directives.append((start, i, text[start:i]))
            continue
        line_start = False
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw:
            end = text.find(")" + raw.group(1) + '"', i + raw.end())
            end = n if end < 0 else end + len(raw.group(1)) + 2
            tokens.append(Token(text[i:end], i, end))
            i = end
            continue
        m = IDENT.match(text, i)
        if m and not (text.startswith(("u8\"", "u\"", "U\"", "L\"", "u8'", "u'", "U'", "L'"), i)
                      and m.group(0) in ("u8", "u", "U", "L")):
            tokens.append(Token(m.group(0), i, m.end()))
            i = m.end()
            continue
        if c in "\"'" or (m and m.group(0) in ("u8", "u", "U", "L")):
            j = i
            while text[j] not in "\"'":
                j += 1
            quote = text[j]
            j += 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            tokens.append(Token(text[i:j + 1], i, j + 1))
            i = j + 1
            continue
        m = NUMBER.match(text, i)
        if m and (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())):
            tokens.append(Token(m.group(0), i, m.end()))
            i = m.end()
            continue
        for p in PUNCT3 + PUNCT2:
            if text.startswith(p, i):
                tokens.append(Token(p, i, i + len(p)))
                i += len(p)
                break
        else:
            tokens.append(Token(c, i, i + 1))
            i += 1
    return tokens, directives


def matching(tokens, i, open_, close):
    """Index of the token closing tokens[i] (forward), or None."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].text == open_:
            depth += 1
        elif tokens[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return None


def matching_back(tokens, i, open_, close):
    """Index of the token opening tokens[i] (backward), or None."""
    depth = 0
    for j in range(i, -1, -1):
        if tokens[j].text == close:
            depth += 1
        elif tokens[j].text == open_:
            depth -= 1
            if depth == 0:
                return j
    return None


LAMBDA_SPECIFIERS = {"mutable", "constexpr", "consteval", "noexcept", "__device__", "__host__",
                     "static"}


def classify_brace(tokens, i):
    """What the `{` at tokens[i] opens: 'loop', 'lambda', 'class' or 'block'."""
    prev = tokens[i - 1].text if i > 0 else ""
    if prev == "do":
        return "loop"
    if prev == "]":
        return "lambda"
    j = i - 1
    # A lambda's trailing return type: `[](int x) -> float {`.
    for k in range(i - 1, max(i - 12, 0), -1):
        if tokens[k].text in (";", "{", "}"):
            break
        if tokens[k].text == "->":
            j = k - 1
            break
    while j >= 0 and tokens[j].text in LAMBDA_SPECIFIERS:
        j -= 1
    if j >= 0 and tokens[j].text == ")":
        open_ = matching_back(tokens, j, "(", ")")
        if open_ is not None and open_ > 0:
            head = tokens[open_ - 1].text
            if head in ("for", "while"):
                return "loop"
            k = open_ - 1
            while k >= 0 and tokens[k].text in LAMBDA_SPECIFIERS:
                k -= 1
            if k >= 0 and tokens[k].text == "]":
                return "lambda"
    for k in range(i - 1, -1, -1):
        if tokens[k].text in (";", "{", "}", ")"):
            break
        if tokens[k].text in ("struct", "class", "union", "enum"):
            return "class"
    return "block"


def line_ending(text):
    return "\r\n" if "\r\n" in text else "\n"


def insertion_after_brace(text, brace_end, statements, eol):
    """(offset, inserted text) that puts `statements` first in the block opened at brace_end."""
    line_end = text.find("\n", brace_end)
    rest = text[brace_end:len(text) if line_end < 0 else line_end].rstrip("\r")
    if rest.strip() == "" or rest.lstrip().startswith("//"):
        if line_end < 0:  # `{` on the last line, nothing after it
            return brace_end, eol + "".join(s + eol for s in statements)[:-len(eol)]
        # Indent like the next non-blank line of the block.
        m = re.compile(r"[ \t]*(?=\S)").search(text, line_end + 1)
        indent = m.group(0) if m else ""
        return line_end + 1, "".join(indent + s + eol for s in statements)
    # Code follows on the brace's line: annotation after code, stripped with the space before it.
    return brace_end, "".join(" " + s for s in statements)


def annotate(text):
    """Returns (annotated text, report dict)."""
    tokens, directives = tokenize(text)
    eol = line_ending(text)
    report = dict(kernels=0, annotated=0, declarations=0, loops=0, loops_skipped=0, problems=[])
    edits = []  # (offset, text)
    for start, _, directive in directives:
        if re.match(r"#\s*define\b", directive) and re.search(r"\b__global__\b", directive):
            line = text.count("\n", 0, start) + 1
            report["kernels"] += 1
            report["problems"].append(f"line {line}: kernel defined inside a macro")
    i = 0
    while i < len(tokens):
        if tokens[i].text != "__global__":
            i += 1
            continue
        line = text.count("\n", 0, tokens[i].start) + 1
        # The declaration ends at the first `;` or `{` outside parentheses.
        j, depth, name = i + 1, 0, None
        while j < len(tokens):
            t = tokens[j].text
            if t in ("(", "["):
                if depth == 0 and t == "(" and name is None and IDENT.fullmatch(tokens[j - 1].text) \
                        and tokens[j - 1].text not in ("__launch_bounds__", "__attribute__",
                                                       "__cluster_dims__", "alignas", "decltype"):
                    name = tokens[j - 1].text
                depth += 1
            elif t in (")", "]"):
                depth -= 1
            elif depth == 0 and t in (";", "{"):
                break
            j += 1
        if j >= len(tokens) or tokens[j].text == ";":
            report["declarations"] += 1
            i = j + 1
            continue
        report["kernels"] += 1
        body_end = matching(tokens, j, "{", "}")
        if body_end is None:
            report["problems"].append(f"line {line}: kernel '{name}': unbalanced braces")
            break
        edits.append(insertion_after_brace(text, tokens[j].end,
                                           ['TRACE_GROUP("k", 0);', 'TRACE_RANGE("body");'], eol))
        report["annotated"] += 1
        stack = []  # kinds of the open braces inside the body
        k = j + 1
        while k < body_end:
            t = tokens[k].text
            if t == "{":
                kind = classify_brace(tokens, k)
                stack.append(kind)
                if kind == "loop":
                    if any(s in ("lambda", "class") for s in stack[:-1]):
                        report["loops_skipped"] += 1
                    else:
                        edits.append(insertion_after_brace(text, tokens[k].end,
                                                           ['TRACE_RECORD("iter");'], eol))
                        report["loops"] += 1
            elif t == "}":
                if stack:
                    stack.pop()
            elif t in ("for", "while") and k + 1 < body_end and tokens[k + 1].text == "(":
                close = matching(tokens, k + 1, "(", ")")
                after = tokens[close + 1].text if close is not None and close + 1 < len(tokens) else ""
                do_tail = t == "while" and after == ";" and tokens[k - 1].text == "}"
                if after != "{" and not do_tail:
                    report["loops_skipped"] += 1
            elif t == "do" and tokens[k + 1].text != "{":
                report["loops_skipped"] += 1
            k += 1
        i = body_end + 1
    out = []
    last = 0
    for offset, inserted in sorted(edits, key=lambda e: e[0]):
        out.append(text[last:offset])
        out.append(inserted)
        last = offset
    out.append(text[last:])
    annotated = "#include <cutrace/trace.h>" + eol + "".join(out)
    return annotated, report


def main(argv):
    if argv[1:] == ["--header"]:
        print("\t".join(COLUMNS))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    annotated, report = annotate(text)
    problems = report["problems"]
    if report["annotated"] != report["kernels"] and not problems:
        problems.append("kernels found but not annotated")
    if report["kernels"] == 0:
        problems.append("no __global__ kernel definition")
    with open(argv[2], "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(annotated)
    status = "fail" if problems else "ok"
    print("\t".join(str(v) for v in [argv[1], report["kernels"], report["annotated"],
                                     report["declarations"], report["loops"],
                                     report["loops_skipped"], status, "; ".join(problems)]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
