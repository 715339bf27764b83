"""The consumer k-loop of the hopper GEMM's SASS (cuobjdump -sass), for the recorder table
scripts (imported by recorder2_table.py and recorder4_table.py)."""
import re


def kloop(path):
    """The consumer k-loop of a cuobjdump -sass listing: from the target of the first branch after
    the wgmma wait (WARPGROUP.DEPBAR) back to before that wait, to that branch (a loop inside
    the k-loop, such as the staged recorder's copy, branches back to after the wait)."""
    ins = [(int(m.group(1), 16), m.group(2).strip()) for m in
           (re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", l) for l in open(path)) if m]
    for i, (w, s) in enumerate(ins):
        if "WARPGROUP.DEPBAR" not in s:
            continue
        for a, t in ins[i:]:
            m = re.search(r"BRA .*?0x([0-9a-f]+)", t)
            if m and int(m.group(1), 16) < w:
                start = [k for k, (b, _) in enumerate(ins) if b == int(m.group(1), 16)][0]
                return [x for _, x in ins[start:ins.index((a, t)) + 1]]
    return []


def kloop_lines(path):
    """The listing's lines of kloop(path), as cuobjdump wrote them (offsets and encodings kept, so
    kloop() reads the extract as it reads the whole listing)."""
    lines = open(path).read().split("\n")
    body = kloop(path)
    if not body:
        return []
    ins = [(k, m.group(2).strip()) for k, m in
           ((k, re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", l)) for k, l in enumerate(lines)) if m]
    for i in range(len(ins) - len(body) + 1):
        if [s for _, s in ins[i:i + len(body)]] == body:
            return lines[ins[i][0]:ins[i + len(body) - 1][0] + 1]
    return []


def loop_lines(path, marker, function=None):
    """The listing's lines (as cuobjdump wrote them, with a `Function :` line first when
    `function` is given) of the innermost loop that holds an instruction containing `marker`:
    from a backward branch's target to that branch, in `function` only when given (a substring
    of its `Function :` line)."""
    lines = open(path).read().split("\n")
    ins, inside, head = [], function is None, None
    for k, line in enumerate(lines):
        if "Function :" in line:
            inside = function is None or function in line
            head = line if inside else head
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and inside:
            ins.append((k, int(m.group(1), 16), m.group(2).strip()))
    best = None
    for i, (_, a, s) in enumerate(ins):
        m = re.search(r"BRA .*?0x([0-9a-f]+)", s)
        if not m or int(m.group(1), 16) >= a:
            continue
        start = next((j for j, (_, b, _) in enumerate(ins) if b == int(m.group(1), 16)), None)
        if start is None or not any(marker in x for _, _, x in ins[start:i + 1]):
            continue
        if best is None or i + 1 - start < best[1] - best[0]:
            best = (start, i + 1)
    if best is None:
        return []
    body = lines[ins[best[0]][0]:ins[best[1] - 1][0] + 1]
    return ([head] if function is not None and head else []) + body


def loop(path, marker, function=None):
    """The instructions of loop_lines(path, marker, function)."""
    return [m.group(1).strip() for m in
            (re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", l) for l in loop_lines(path, marker, function))
            if m]
