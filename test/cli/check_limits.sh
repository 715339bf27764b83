#!/usr/bin/env bash
# trace-rewrite at the limits of the format and of the parse, and on names that would lose data
# (docs/cli.md, "Limits" and "Outputs"): each case states the exit status, the message and the
# files left (content, inode, link-ness). Special files are made in a temporary folder; the only
# system nodes touched are /dev/zero (read) and /dev/full.
# usage: check_limits.sh <trace-rewrite>
set -uo pipefail
tool=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }
check() { # check <description> <command...>
  local what=$1; shift
  if "$@"; then pass "$what"; else flunk "$what"; fi
}
run() { # run <args...>: $rc and $err (stderr) hold what the tool did
  "$tool" "$@" >out.txt 2>err.txt
  rc=$?
  err=$(cat err.txt)
  rm -f out.txt err.txt
}
expect() { # expect <description> <status> <stderr substring>
  if [[ $rc == "$2" && $err == *"$3"* ]]; then pass "$1"; else
    flunk "$1 (status $rc, stderr: $err)"; fi
}
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n  x[0] = 1;\n}\n' > c.cu
cp c.cu orig.cu

# Sites: a record's site id has 16 bits (docs/FORMAT.md), so a kernel has at most 65536 sites.
sites() { python3 -c "import sys
print('#include <cutrace/trace.h>\n__global__ void k(int *x) {')
for i in range($1): print('  TRACE_RECORD(\"s\");')
print('}')" > "$2"; }
sites 65536 s65536.cu
run --traced s65536.cu -o s65536.traced.cu
check "65536 sites in one kernel are accepted" test "$rc" = 0 -a -s s65536.traced.cu
sites 65537 s65537.cu
run --traced s65537.cu -o s65537.traced.cu
expect "site 65537 of a kernel is a located error (exit 1)" 1 \
  "s65537.cu:65539:3: error: kernel 'k' records more than 65536 sites (65537): a record's site id has 16 bits"
check "... and nothing is written" test ! -e s65537.traced.cu -a ! -e s65537.trace_map.h -a ! -e s65537.trace_map.json

# Nesting: as deep as Clang 19 can count (65535), on the parse's own large stack.
nest() { python3 -c "import sys
n, shape = $1, '$2'
print('#include <cutrace/trace.h>\n__global__ void k(int *x) {')
if shape == 'braces': print('{' * n + ' TRACE_RECORD(\"a\"); x[0] = 1; ' + '}' * n)
if shape == 'parens': print('  TRACE_RECORD(\"a\", ' + '(' * n + 'x[1]' + ')' * n + ');')
print('}')" > "$3"; }
nest 1000 braces n1000.cu
run --traced n1000.cu -o n1000.traced.cu
check "1000 nested blocks (which nvcc compiles) are rewritten" test "$rc" = 0 -a -s n1000.traced.cu
nest 65000 braces n65000.cu
run --traced n65000.cu -o n65000.traced.cu
check "65000 nested blocks are rewritten" test "$rc" = 0 -a -s n65000.traced.cu
run --verify-strip --strict n65000.cu
check "... and verified by both Clang passes" test "$rc" = 0
nest 65000 parens p65000.cu
run --traced p65000.cu -o p65000.traced.cu
check "a payload in 65000 nested parentheses is rewritten (no stack overflow)" test "$rc" = 0
nest 65536 braces n65536.cu
run --traced n65536.cu -o n65536.traced.cu
expect "nesting deeper than 65535 is Clang's located error (exit 3)" 3 \
  "n65536.cu:3:65535: bracket nesting level exceeded maximum of 65535"
check "... and nothing is written" test ! -e n65536.traced.cu -a ! -e n65536.trace_map.h

# Input size: a source is read up to 256 MiB, whatever kind of file it is.
run_limited() { (ulimit -v 2000000; "$tool" "$@" >/dev/null 2>err.txt); rc=$?; err=$(cat err.txt); }
run_limited /dev/zero
expect "/dev/zero under a memory limit is refused with the bound (exit 2)" 2 \
  "cannot read '/dev/zero': larger than 256 MiB, the bound for an input"
mkfifo big.fifo
head -c 300000000 /dev/zero > big.fifo 2>/dev/null &
writer=$!
run_limited big.fifo -o big.out.cu
kill $writer 2>/dev/null; wait $writer 2>/dev/null
expect "a FIFO past the bound is refused (exit 2)" 2 "cannot read 'big.fifo': larger than 256 MiB"
check "... and nothing is written" test ! -e big.out.cu
truncate -s 300M sparse.cu
run sparse.cu -o sparse.out.cu
expect "a regular file past the bound is refused from its size (exit 2)" 2 \
  "cannot read 'sparse.cu': larger than 256 MiB"

# Names: a temporary name fits NAME_MAX whatever the output's length.
for n in 245 250 255; do
  name=$(printf 'o%.0s' $(seq $((n - 3)))).cu
  run c.cu -o "$name"
  check "-o with a name of $n bytes is written" test "$rc" = 0 -a -s "$name"
  map=$(printf 'm%.0s' $(seq $((n - 5)))).h # its JSON, .json for .h, has n bytes
  run --traced c.cu -o t.cu --map "$map"
  check "--map whose JSON has a name of $n bytes is written, with the JSON" \
    test "$rc" = 0 -a -s "$map" -a -s "${map%.h}.json"
  rm -f "$name" "$map" t.cu
done

map=$(printf 'm%.0s' $(seq 253)).h
run --traced c.cu -o t.cu --map "$map"
expect "--map whose JSON name would pass NAME_MAX is refused (exit 2)" 2 "File name too long"
check "... and neither the map nor the traced file is written" test ! -e "$map" -a ! -e t.cu

# -i writes each file once; -o never replaces a link it cannot follow.
run -i c.cu c.cu
expect "-i naming one file twice is refused (exit 2)" 2 "'c.cu' is named twice; -i rewrites each file once"
cp c.cu a.cu
ln a.cu b.cu
ino=$(stat -c %i a.cu)
run -i a.cu b.cu
expect "-i on two hard links of one file is refused (exit 2)" 2 "'b.cu' and 'a.cu' are one file"
check "... and the link is not split" test "$(stat -c %i b.cu)" = "$ino" -a "$(stat -c %h a.cu)" = 2
check "... and the file is unchanged" cmp a.cu orig.cu
ln -s nowhere dangling.cu
run c.cu -o dangling.cu
expect "-o a dangling symlink is refused (exit 2)" 2 "'dangling.cu' is a symbolic link to a file that does not exist"
check "... and the link stays a link to nothing" test -L dangling.cu -a ! -e nowhere
ln -s loop.cu loop.cu
run c.cu -o loop.cu
expect "-o a self-looping symlink is refused (exit 2)" 2 "'loop.cu' is a symbolic link that never reaches a file (a loop)"
check "... and the link stays" test -L loop.cu
run --traced c.cu -o t.cu --map dangling.cu
expect "--map a dangling symlink is refused (exit 2)" 2 "'dangling.cu' is a symbolic link to a file that does not exist"
check "... and nothing is written" test ! -e t.cu
check "the input survived every refusal" cmp c.cu orig.cu
check "no temporary files are left behind" test -z "$(find . -name '*.tmp-*')"
exit $fail
