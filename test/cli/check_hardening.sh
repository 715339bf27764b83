#!/usr/bin/env bash
# trace-rewrite on hostile input and hostile file systems: every case states the exit status, the
# message and what is left on disk (docs/reliability.md, "What the tool promises about files on
# error"). Special files are made in a temporary folder, never the system's.
# usage: check_hardening.sh <trace-rewrite>
set -uo pipefail
tool=$1
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
# run <args...>: runs the tool; $rc, $out (stdout) and $err (stderr) hold what it did.
run() {
  "$tool" "$@" >out.txt 2>err.txt
  rc=$?
  out=$(cat out.txt)
  err=$(cat err.txt)
  rm -f out.txt err.txt
}
expect() { # expect <description> <status> <stderr substring>
  if [[ $rc == "$2" && $err == *"$3"* ]]; then pass "$1"; else
    flunk "$1 (status $rc, stderr: $err)"; fi
}
kernel='#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n  x[0] = 1;\n}\n'
printf "$kernel" > in.cu
cp in.cu orig.cu
plain=$'__global__ void k(int *x) {\n  x[0] = 1;\n}'

# Item 2 and 13: names are read as C++ reads them; what cannot go into the map is an error.
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("caf\xe9");\n}\n' > latin1.cu
run --traced latin1.cu -o latin1.traced.cu
expect "a non-UTF-8 name is an error, not an abort" 1 "latin1.cu:3:16: error: string is not valid UTF-8"
check "nothing is written for a non-UTF-8 name" test ! -e latin1.traced.cu -a ! -e latin1.trace_map.h
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a\\0b");\n}\n' > nul.cu
run --traced nul.cu -o nul.traced.cu
expect "a NUL in a name is an error" 1 "nul.cu:3:16: error: string contains a NUL character"
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("\\x41");\n  TRACE_RECORD(R"(a"b)", 1, u8"l\\u00e9" "x");\n}\n' > escapes.cu
run --traced escapes.cu -o escapes.traced.cu
check "escapes, raw strings, u8 and concatenation decode as in C++" \
  python3 -c 'import json,sys; k=json.load(open("escapes.trace_map.json"))["kernels"][0]
sys.exit(not ([s["name"] for s in k["sites"]] == ["A", "a\"b"] and k["lanes"] == ["main", "l\u00e9x"]))'

# Item 3: Clang's crash (a stack overflow on a deep expression) is caught; exit 3, nothing written.
python3 -c "print('#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD(\"a\", ' + '+'.join(['x[1]'] * 65000) + ');\n}')" > deep.cu
run --traced deep.cu -o deep.traced.cu
check "a 65k-term payload parses on the tool's large parse stack (exit 0)" test "$rc" = 0

# Item 7: settings that keep Clang from starting are named.
run --traced in.cu -o o.cu --cuda-path=/nonexistent
expect "a missing CUDA installation is named (exit 2)" 2 "--cuda-path '/nonexistent' holds no CUDA installation"
run --traced in.cu -o o.cu --cuda-gpu-arch=foo
expect "a malformed GPU architecture is named (exit 2)" 2 "--cuda-gpu-arch 'foo' is not a GPU architecture"
run --traced in.cu -o o.cu --cuda-gpu-arch=sm_999
expect "Clang's reason for not starting is passed on (exit 3)" 3 "unsupported CUDA gpu architecture: sm_999"

printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a";\n  x[0] = 1;\n}\n' > paren.cu
run paren.cu
expect "a missing ')' is named where the ';' comes, not blamed on the name" 1 \
  "paren.cu:3:19: error: TRACE_RECORD is missing its closing parenthesis"
check "... and nothing else is reported" test "$(grep -c 'error:' <<<"$err")" = 1

# Item 16: --verify-strip says once what it could not check; --strict fails.
printf '#include <cutrace/trace.h>\n#include "missing.h"\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n}\n' > noinc.cu
run --verify-strip noinc.cu
expect "an unparsable file: exit 0 with one plain note" 0 \
  "note: only the lexical rules were checked: neither Clang pass could parse the file"
check "... said once, with no count of ignored errors" \
  test "$(grep -c 'note:' <<<"$err")" = 1
run --verify-strip --strict noinc.cu
expect "--strict turns it into an error, exit 3" 3 "error: only the lexical rules were checked"

# Item 8: an output never replaces an input, and no file is named twice.
run --traced in.cu -o in.cu
expect "--traced -o INPUT is refused (exit 2)" 2 "'in.cu' is the input file"
expect "--traced -o INPUT says to name other files" 2 "(--traced writes new files: name others with -o and --map)"
check "--traced -o INPUT does not suggest -i, which --traced refuses" eval '[[ $err != *"-i"* ]]'
run --traced in.cu -o o.cu --map in.cu
expect "--map INPUT is refused (exit 2)" 2 "'in.cu' is the input file"
ln in.cu hardlink.cu
run --traced in.cu -o hardlink.cu
expect "an output that is the input under another name is refused" 2 "'hardlink.cu' is the input file"
run --traced in.cu -o o.cu --map o.cu
expect "--map naming the output is refused (exit 2)" 2 "'o.cu' would be written twice"
run in.cu -o in.cu
expect "strip -o INPUT is refused: -i says in place" 2 "strip in place with -i"
check "the input survived every refusal" cmp in.cu orig.cu
check "nothing was written by the refused runs" test ! -e o.cu -a ! -e o.trace_map.h

# Item 9: FIFOs, devices and links to them are written to, never replaced.
mkfifo fifo.cu
cat fifo.cu > from_fifo.txt &
reader=$!
run in.cu -o fifo.cu
wait $reader
check "-o FIFO writes into the FIFO" test "$rc" = 0 -a "$(cat from_fifo.txt)" = "$plain"
check "-o FIFO leaves a FIFO" test -p fifo.cu
if mknod null.cu c 1 3 2>/dev/null; then
  run in.cu -o null.cu
  check "-o device node writes to the device and leaves the node" test "$rc" = 0 -a -c null.cu
else
  echo "skip: -o device node (mknod needs root)"
fi
ln -s /proc/self/fd/1 stdout.cu
check "-o symlink to /proc/self/fd/1 writes to stdout and keeps the link" \
  bash -c "[[ \$('$tool' in.cu -o stdout.cu) == \"\$(printf '%s' \"$plain\")\" ]] && test -L stdout.cu"
ln -s orig.cu link.cu
run in.cu -o link.cu
check "-o symlink to a regular file replaces the file it points to, not the link" \
  bash -c "test -L link.cu && [[ \$(cat orig.cu) == \"\$(printf '%s' \"$plain\")\" ]]"
cp in.cu orig.cu

# Item 10: all or nothing.
echo "not a folder" > file
run --traced in.cu -o file/x.cu --map m.h
expect "an unwritable -o fails (exit 2)" 2 "cannot write 'file/x.cu'"
check "... and its map files are not written" test ! -e m.h -a ! -e m.json
mkdir dir
echo "old map" > dir/in.trace_map.h
run --traced in.cu -o dir
expect "-o DIRECTORY is refused (exit 2)" 2 "'dir' is a directory"
check "... and the maps already there are untouched" test "$(cat dir/in.trace_map.h)" = "old map"
cp in.cu a.cu
printf '__global__ void k(int i) {\n  TRACE_RECORD("a", i++);\n}\n' > bad.cu
run -i a.cu bad.cu
expect "-i on several files with one bad file exits 1 and says nothing was written" 1 \
  "nothing was written: 'bad.cu' failed"
check "... and the good file is untouched" cmp a.cu in.cu

# Item 11: a full disk on stdout is an I/O error, exit 2.
run_full() { "$tool" in.cu >/dev/full 2>err.txt; rc=$?; err=$(cat err.txt); }
run_full
expect "stdout on a full disk exits 2 with a message" 2 "cannot write to stdout: No space left on device"

# Item 12: a file name cannot inject code into the generated files.
nl_name=$'nl\n#error x\n.cu'
cp in.cu "$nl_name"
run --traced "$nl_name" -o nl.traced.cu --map nl_map.h
check "a newline in the file name stays inside the banner comment" \
  bash -c "! grep -q '^#error' nl.traced.cu nl_map.h && grep -q 'from nl\\\\x0a#error x\\\\x0a.cu' nl.traced.cu"
run --traced "$nl_name" -o "$nl_name.traced.cu" # the map is named after the output
expect "a default map name that #include cannot spell is refused (exit 2)" 2 "choose another path with --map"
cp in.cu 'q"uote.cu'
run --traced 'q"uote.cu' -o 'q"uote.traced.cu'
expect "a quote in the map's name is refused, not spelled into #include" 2 "cannot be named in an #include"
check "... and nothing is written" test ! -e 'q"uote.traced.cu'
run --traced 'q"uote.cu' -o q.traced.cu
check "a quote in the input's name alone is fine: the map is named after the output" test "$rc" = 0

# Item 13: a byte-order mark stays where it is; the terminal report shows no raw control bytes.
printf '\xef\xbb\xbf#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a");\n  x[0] = 1;\n}\n' > bom.cu
printf '\xef\xbb\xbf__global__ void k(int *x) {\n  x[0] = 1;\n}\n' > bom.plain.cu
run --verify-strip bom.cu --against bom.plain.cu
check "strip of a BOM file keeps the BOM and drops the include line whole" test "$rc" = 0
run --traced bom.cu -o bom.traced.cu
check "the traced banner follows the BOM" bash -c "head -c 6 bom.traced.cu | od -An -c | grep -q '357 273 277   /   /'"
run --verify-strip bom.traced.cu
expect "verify-strip still recognises a traced file that starts with a BOM" 1 "file contains code generated"
printf '#include <cutrace/trace.h>\n__global__ void k(int *x) {\n  TRACE_RECORD("a\x1b[31m\x07");\n  x[0] = 1;\n}\n' > ctl.cu
run ctl.cu --explain=terminal
check "--explain=terminal prints no raw ESC or BEL" bash -c "! printf '%s' \"\$1\" | grep -q \$'[\\x1b\\x07]'" _ "$err"
check "... and shows them as escapes" bash -c "[[ \"\$1\" == *'\\x1b[31m\\x07'* ]]" _ "$err"

leftovers=$(find . -name '*.tmp-*')
check "no temporary files are left behind" test -z "$leftovers"
exit $fail
