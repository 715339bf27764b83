#!/usr/bin/env python3
"""Inputs for the scaling benchmark: one shape per way a file can grow.

usage: generate.py SHAPE N OUT [PLAIN_OUT]
  oneline   N `p[0] = 1; TRACE_RECORD("r");` on one line of one kernel
  ranges    N TRACE_RANGE_START/TRACE_RANGE_END pairs in one kernel
  records   N one-line TRACE_RECORD statements in one kernel
  kernels   N small kernels, one annotation and one launch each
  endings   N annotated lines with LF endings; PLAIN_OUT gets the stripped file with CRLF endings
"""
import sys


def kernel(body, name="k"):
    return ("#include <cutrace/trace.h>\n\n__global__ void " + name + "(int *p) {\n" + body +
            "}\n\nvoid run(int *p) { " + name + "<<<1, 32>>>(p); }\n")


def oneline(n):
    return kernel("  " + " ".join(['p[0] = 1; TRACE_RECORD("r");'] * n) + "\n")


def ranges(n):
    return kernel("".join('  auto t%d = TRACE_RANGE_START("r%d");\n  p[%d] = %d;\n'
                          '  TRACE_RANGE_END(t%d);\n' % (i, i % 10, i % 7, i, i) for i in range(n)))


def records(n):
    return kernel("".join('  TRACE_RECORD("r%d");\n  p[%d] = %d;\n' % (i % 10, i % 7, i)
                          for i in range(n)))


def kernels(n):
    out = ["#include <cutrace/trace.h>\n\n"]
    for i in range(n):
        out.append('__global__ void k%d(int *p) {\n  TRACE_RECORD("r");\n  p[%d] = %d;\n}\n\n'
                   % (i, i % 7, i))
    out.append("void run(int *p) {\n")
    out.extend("  k%d<<<1, 32>>>(p);\n" % i for i in range(n))
    out.append("}\n")
    return "".join(out)


def endings(n):
    body = "".join('  p[%d] = %d;\n  TRACE_RECORD("r");\n' % (i % 7, i) for i in range(n))
    annotated = kernel(body)
    plain = annotated.replace("#include <cutrace/trace.h>\n", "")
    plain = plain.replace('  TRACE_RECORD("r");\n', "").replace("\n", "\r\n")
    return annotated, plain


def main():
    shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    text = globals()[shape](n)
    if shape == "endings":
        text, plain = text
        with open(sys.argv[4], "w", newline="") as f:
            f.write(plain)
    with open(out, "w", newline="") as f:
        f.write(text)


if __name__ == "__main__":
    main()
