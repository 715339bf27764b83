#!/usr/bin/env bash
# trace-rewrite's file handling: -o -, default stdout, -i, nothing written (or changed) on error,
# -p and an upward compile_commands.json feeding the parse, exit statuses 2 and 3.
# usage: check_io.sh <trace-rewrite>
set -uo pipefail
tool=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # check <description> <command...>: the command must succeed
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
status() { "$@" >/dev/null 2>&1; echo $?; }

cd "$work"
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n  x[0] = 1;\n}\n' > a.cu
printf '__global__ void k(int *x) {\n  x[0] = 1;\n}\n' > a.plain
cp a.cu b.cu

check "-o - writes the stripped file to stdout" cmp <("$tool" a.cu -o -) a.plain
check "stdout is the default for one file" cmp <("$tool" a.cu) a.plain
"$tool" a.cu -o out.cu
check "-o FILE writes FILE" cmp out.cu a.plain
check "the input is never modified without -i" grep -q TRACE_RECORD a.cu
"$tool" -i a.cu b.cu
check "-i rewrites every input in place" bash -c 'cmp a.cu a.plain && cmp b.cu a.plain'

printf '__global__ void k(int *x, int i) {\n  TRACE_RECORD("a", i++);\n}\n' > bad.cu
echo "previous contents" > keep.cu
check "an annotation error exits 1" test "$(status "$tool" bad.cu -o keep.cu)" = 1
check "a failing run leaves an existing output unchanged" grep -qx "previous contents" keep.cu
check "a failing -i run leaves the input unchanged" bash -c \
  "cp bad.cu bad2.cu; '$tool' -i bad2.cu 2>/dev/null; cmp bad.cu bad2.cu"
check "no temporary files are left behind" test "$(ls | grep -c -v -E '^(a\.cu|a\.plain|b\.cu|out\.cu|bad2?\.cu|keep\.cu)$')" = 0

check "an unreadable input exits 2" test "$(status "$tool" missing.cu)" = 2
check "an unknown option exits 2" test "$(status "$tool" --no-such-option a.cu)" = 2
check "--traced refuses -i (exit 2)" test "$(status "$tool" --traced -i a.cu)" = 2
check "several files without -i exit 2" test "$(status "$tool" a.cu b.cu)" = 2

# Compile flags: the file only parses with -DNEED_FLAG.
mkdir -p proj/src proj/build
printf '#include <cutrace/trace.h>\n#ifndef NEED_FLAG\n#include "only_with_need_flag.h"\n#endif\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n  x[0] = 1;\n}\n' > proj/src/k.cu
cat > proj/build/compile_commands.json <<JSON
[{"directory": "$work/proj/build",
  "command": "/usr/local/cuda/bin/nvcc -DNEED_FLAG=1 -arch=sm_90 --expt-relaxed-constexpr -Xcompiler -Wall -c $work/proj/src/k.cu -o k.o",
  "file": "$work/proj/src/k.cu"}]
JSON
check "without flags --strict cannot parse: exit 3" \
  test "$(status "$tool" --verify-strip --strict proj/src/k.cu)" = 3
check "without flags, plain --verify-strip runs the lexical checks and says so" bash -c \
  "'$tool' --verify-strip proj/src/k.cu 2>&1 | grep -q 'only the lexical rules were checked'"
check "-p BUILD_DIR supplies the flags (nvcc-only flags dropped)" \
  test "$(status "$tool" --verify-strip --strict -p proj/build proj/src/k.cu)" = 0
cp proj/build/compile_commands.json proj/compile_commands.json
check "a compile_commands.json found upward from the file is used" \
  test "$(status "$tool" --verify-strip --strict proj/src/k.cu)" = 0
rm proj/compile_commands.json
check "flags after -- are used" \
  test "$(status "$tool" --verify-strip --strict proj/src/k.cu -- nvcc -DNEED_FLAG -arch=sm_90)" = 0

exit $fail
