#!/usr/bin/env bash
# Limits docs/annotations.md ("Current limits") and docs/cli.md ("Limits") state that no other
# test shows.
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
# --- Limits.MaxEventsFrom1To16777216 (docs/cli.md, "Limits") ---
for n in 1 16777216; do
  "$tool" --traced --max-events "$n" k.cu -o "k$n.cu" >/dev/null 2>&1
  check "Limits.MaxEventsFrom1To16777216 ($n is accepted)" test $? = 0 -a -s "k$n.cu"
done
for n in 0 16777217; do
  "$tool" --traced --max-events "$n" k.cu -o "k$n.cu" >/dev/null 2>err.txt
  rc=$?
  check "Limits.MaxEventsFrom1To16777216 ($n is a usage error, status 2, nothing written)" \
    test "$rc" = 2 -a ! -e "k$n.cu" -a "$(cat err.txt)" = \
    "trace-rewrite: error: --max-events must be between 1 and 16777216"
done
exit $fail
