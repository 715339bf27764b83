"""Running trace-rewrite and nvcc for the strip oracle (test/oracle/oracle.py), and reading their
answers: located errors mapped back to the case that holds the line, PTX differences mapped to
the case whose namespace names the function."""

import difflib
import re
import subprocess

INCLUDE_LINE = "#include <cutrace/trace.h>\n"


def read(path):
    """The file's text, bytes kept as they are (CRLF stays CRLF)."""
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def write(path, text):
    """Writes text byte for byte, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))


def run(argv, cwd=None):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


class Batch:
    """Fragments joined into one file, remembering the line each one starts on."""

    def __init__(self, fragments, header=""):
        self.text = header
        self.starts = []  # (first line, key)
        line = header.count("\n") + 1
        for key, text in fragments:
            self.starts.append((line, key))
            self.text += text
            line += text.count("\n")
            if "#line" in text or "\n# " in text:  # the fragment numbers its lines its own way
                self.text += f"#line {line + 1}\n"
                line += 1

    def key_at(self, line):
        found = None
        for first, key in self.starts:
            if first <= line:
                found = key
            else:
                break
        return found


NVCC_ERROR = re.compile(r"^(?P<file>[^\n(]+)\((?P<line>[0-9]+)\): (?:catastrophic )?error",
                        re.MULTILINE)
CLANG_ERROR = re.compile(r"^(?P<file>[^\n:]+):(?P<line>[0-9]+):[0-9]+: error:", re.MULTILINE)


def error_lines(pattern, output, file_name):
    return [int(m.group("line")) for m in pattern.finditer(output)
            if m.group("file").endswith(file_name)]


NAMESPACE_RE = re.compile(r"oracle_case_([0-9]{6})")


# nvcc spells names of internal linkage (anonymous namespaces, statics) with two hashes of the
# file: _GLOBAL__N__3f2a9c1d_6_k_cu_ff213bb1 or _INTERNAL_553b0d18_6_k_cu_ff213bb1.
FILE_HASHES = re.compile(
    r"(_INTERNAL_|_GLOBAL__N__)[0-9a-f]{8}(_[0-9]+_[A-Za-z0-9_]*?_cu_)((?:[0-9a-f]{8})?)")


def _hashes_zeroed(m):
    return m.group(1) + "00000000" + m.group(2) + ("00000000" if m.group(3) else "")


def ptx_body(ptx):
    """PTX without the comment lines nvcc writes at the top (tool versions), and with the hashes
    of the file in names of internal linkage replaced by zeros. Nothing else differs between two
    compiles of the same code: without -lineinfo, PTX holds no line numbers."""
    return [FILE_HASHES.sub(_hashes_zeroed, l) for l in ptx.splitlines() if not l.startswith("//")]


def ptx_diff(a, b, name_a, name_b):
    return list(difflib.unified_diff(ptx_body(a), ptx_body(b), name_a, name_b, lineterm="", n=2))


FUNCTION_START = re.compile(r"\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b")
FUNCTION_NAME = re.compile(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)")


# Names nvcc numbers by the function's place in the file: its basic blocks, its local depot and
# the call sequences of its comments.
FUNCTION_NUMBERED = re.compile(r"(\$L__BB|__local_depot|callseq )[0-9]+")


def ptx_functions(ptx):
    """{name: lines} of every function defined in the PTX (prototypes left out), as ptx_body
    reads them, with the names numbered by the function's place in the file made the same."""
    out, current, depth, opened = {}, None, 0, False
    for l in ptx_body(ptx):
        l = FUNCTION_NUMBERED.sub(r"\1", l)
        if current is None:
            if FUNCTION_START.match(l):
                m = FUNCTION_NAME.search(l)
                current, depth, opened = (m.group(1) if m else l), 0, False
                lines = [l]
                if l.rstrip().endswith(";"):
                    current = None
            continue
        lines.append(l)
        depth += l.count("{") - l.count("}")
        opened = opened or "{" in l
        if not opened and l.rstrip().endswith(";"):
            current = None  # a prototype
        elif opened and depth <= 0:
            out[current] = lines
            current = None
    return out


def cases_in_ptx_diff(a, b):
    """Indices of the cases whose functions differ between PTX texts a and b; None when a
    difference lies outside every case's functions."""
    def blocks(ptx):
        out, current = {}, None
        for l in ptx_body(ptx):
            if re.match(r"\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b", l):
                m = NAMESPACE_RE.search(l)
                current = int(m.group(1)) if m else -1
            out.setdefault(current, []).append(l)
        return out
    ba, bb = blocks(a), blocks(b)
    keys = {k for k in set(ba) | set(bb) if ba.get(k) != bb.get(k)}
    if None in keys or -1 in keys:
        return None
    return sorted(keys)
