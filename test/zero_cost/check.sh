#!/usr/bin/env bash
# Zero cost, proven: for each annotated X.cu with a never-annotated twin X.plain.cu, the machine
# code of (a) X.plain.cu, (b) strip(X.cu) and (c) X.cu compiled with the no-op header must be
# identical: same section list, same bytes in every .text.* section, and (c) prints no nvcc
# warning that (a) does not print. A strip(X.cu) that is X.plain.cu byte for byte is not compiled
# again: its machine code is (a)'s.
#
# usage: check.sh [--no-strip] [-j N] <trace-rewrite binary> <X.cu | directory>...
#   --no-strip    skip (b) (also skipped, with a note, when the tool path does not exist)
#   -j N          nvcc jobs in parallel (default 2)
# A directory argument means every X.cu in it that has an X.plain.cu beside it.
# Per-file extra nvcc flags come from the file's first line: // cutrace-test-flags: <flags>
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
include_dir=${CUTRACE_INCLUDE_DIR:-$here/../../runtime/include}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
readelf=${LLVM_READELF:-llvm-readelf-19}
objcopy=${LLVM_OBJCOPY:-llvm-objcopy-19}
jobs=2
strip=1

while [[ $# -gt 0 ]]; do
  case $1 in
    --no-strip) strip=0; shift ;;
    -j) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [[ $# -lt 2 ]]; then
  echo "usage: $0 [--no-strip] [-j N] <trace-rewrite> <X.cu | dir>..." >&2
  exit 2
fi
tool=$1; shift
if [[ $strip -eq 1 && ! -x $tool ]]; then
  echo "note: $tool not found or not executable: skipping (b) strip(X.cu)" >&2
  strip=0
fi

inputs=()
for arg in "$@"; do
  if [[ -d $arg ]]; then
    for f in "$arg"/*.cu; do
      [[ $f == *.plain.cu ]] && continue
      [[ -f ${f%.cu}.plain.cu ]] && inputs+=("$f")
    done
  else
    inputs+=("$arg")
  fi
done

source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir zero-cost) || exit 1
trap 'rm -rf "$work"' EXIT

# Section names, one a line, in file order.
sections() { "$readelf" -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]\+\) .*/\1/p'; }

# nvcc diagnostics reduced to "warning...: message" (no file, no line: the twins differ in both).
warnings() { grep -E 'warning' "$1" | grep -v '^Remark' | sed -E 's/^.*\([0-9]+\): //; s/^[^ ]*:[0-9]+:[0-9]+: //' | sort; }

compile() { # <src> <out.cubin> <log> <flags...>
  local src=$1 out=$2 log=$3; shift 3
  "$nvcc" -arch=sm_90 -cubin -I "$(dirname "$src")" "$@" "$src" -o "$out" >"$log" 2>&1
}

check_one() { # <index> <X.cu>; writes $work/<index>.result
  local i=$1 src=$2 d="$work/$1"
  local plain=${src%.cu}.plain.cu name
  name=$(basename "$src")
  mkdir -p "$d"
  local result="$work/$i.result"
  fail() { echo "FAIL $name: $*" >"$result"; }
  if [[ ! -f $src || ! -f $plain ]]; then fail "missing $src or $plain"; return; fi
  local flags=()
  read -r -a flags < <(head -n 1 "$src" | tr -d '\r' | sed -n 's|^// cutrace-test-flags:||p')

  compile "$plain" "$d/a.cubin" "$d/a.log" "${flags[@]}" || { fail "(a) X.plain.cu does not compile: $(head -c 2000 "$d/a.log")"; return; }
  compile "$src" "$d/c.cubin" "$d/c.log" -I "$include_dir" "${flags[@]}" || { fail "(c) X.cu with no-op header does not compile: $(head -c 2000 "$d/c.log")"; return; }
  local variants=(c) stripped_is_plain=0
  if [[ $strip -eq 1 ]]; then
    local stripped="$d/$(basename "${src%.cu}").strip.cu"
    "$tool" "$src" -o "$stripped" >"$d/tool.log" 2>&1 || { fail "(b) $tool failed: $(head -c 2000 "$d/tool.log")"; return; }
    if cmp -s "$stripped" "$plain"; then
      # strip(X.cu) is X.plain.cu byte for byte: the same source and flags compile to (a)'s
      # machine code, so (b) is (a) without compiling it again.
      stripped_is_plain=1
    else
      # -I the input's folder, so quoted includes resolve as they do for X.cu; no -I for the
      # cutrace headers: a stripped file must not need them.
      compile "$stripped" "$d/b.cubin" "$d/b.log" -I "$(dirname "$src")" "${flags[@]}" || { fail "(b) strip(X.cu) does not compile: $(head -c 2000 "$d/b.log")"; return; }
      variants=(b c)
    fi
  fi

  sections "$d/a.cubin" >"$d/a.sections"
  local ntext
  ntext=$(grep -c '^\.text\.' "$d/a.sections")
  for v in "${variants[@]}"; do
    sections "$d/$v.cubin" >"$d/$v.sections"
    if ! diff -q "$d/a.sections" "$d/$v.sections" >/dev/null; then
      fail "($v) section list differs from (a): $(diff "$d/a.sections" "$d/$v.sections" | grep '^[<>]' | tr '\n' ' ')"; return
    fi
    while read -r sec; do
      "$objcopy" --dump-section="$sec=$d/a$sec.bin" "$d/a.cubin" "$d/a.tmp" 2>/dev/null
      "$objcopy" --dump-section="$sec=$d/$v$sec.bin" "$d/$v.cubin" "$d/$v.tmp" 2>/dev/null
      if ! cmp -s "$d/a$sec.bin" "$d/$v$sec.bin"; then fail "($v) $sec differs from (a)"; return; fi
    done < <(grep '^\.text\.' "$d/a.sections")
  done
  warnings "$d/a.log" >"$d/a.warn"
  warnings "$d/c.log" >"$d/c.warn"
  local extra
  extra=$(comm -13 "$d/a.warn" "$d/c.warn")
  if [[ -n $extra ]]; then fail "(c) prints warnings (a) does not: $extra"; return; fi
  local verdict='a=c (strip skipped)'
  ((strip)) && verdict='a=b=c'
  ((stripped_is_plain)) && verdict='a=c, b is X.plain.cu byte for byte'
  echo "ok   $name: $verdict, $ntext .text section(s) identical" >"$result"
}

running=0
for i in "${!inputs[@]}"; do
  check_one "$i" "${inputs[$i]}" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
for i in "${!inputs[@]}"; do
  if [[ -f $work/$i.result ]]; then cat "$work/$i.result"; else echo "FAIL $(basename "${inputs[$i]}"): no result"; fi
  grep -q '^ok ' "$work/$i.result" 2>/dev/null || status=1
done
echo "${#inputs[@]} file(s) checked: $( [[ $status -eq 0 ]] && echo 'all identical' || echo 'DIFFERENCES FOUND')"
exit $status
