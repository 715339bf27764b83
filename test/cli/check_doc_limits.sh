#!/usr/bin/env bash
# Limits docs/annotations.md ("Current limits") states that no other test shows.
# usage: check_doc_limits.sh TRACE-REWRITE
set -uo pipefail
tool=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
check() { # check <name> <command...>
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}

# --- Limits.AnnotationMacroOfAHeaderIsLeftAsWritten ---
# "One file at a time": a macro that expands to an annotation, defined in a header, draws no
# error; strip and --traced leave its use as written, and the map has no site for it.
printf '#pragma once\n#define MARK() TRACE_RECORD("m")\n' >h.cuh
printf '#include <cutrace/trace.h>\n#include "h.cuh"\n__global__ void k(int *x) {\n  MARK();\n  x[0] = 1;\n}\n' >k.cu
"$tool" k.cu -o k.strip.cu >strip.out 2>&1
strip_rc=$?
"$tool" --traced k.cu -o k.traced.cu >traced.out 2>&1
traced_rc=$?
check "Limits.AnnotationMacroOfAHeaderIsLeftAsWritten (no diagnostic, status 0)" \
  test "$strip_rc" = 0 -a "$traced_rc" = 0 -a ! -s strip.out -a ! -s traced.out
check "Limits.AnnotationMacroOfAHeaderIsLeftAsWritten (strip keeps the use)" \
  grep -q '^  MARK();$' k.strip.cu
check "Limits.AnnotationMacroOfAHeaderIsLeftAsWritten (traced keeps the use)" \
  grep -q '^  MARK();$' k.traced.cu
check "Limits.AnnotationMacroOfAHeaderIsLeftAsWritten (no site in the map)" \
  /usr/bin/python3 -c 'import json, sys
d = json.load(open("k.trace_map.json"))
sys.exit(any(k["sites"] for k in d["kernels"]))'
exit $fail
