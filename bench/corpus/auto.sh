#!/usr/bin/env bash
# The corpus with `trace-rewrite --traced --auto` (docs/auto.md): every file of files.txt as its
# authors wrote it, no annotation added, rewritten (timed, CPU seconds) and the traced output
# compiled with nvcc for sm_90 with the project's own flags. Writes OUT/auto.tsv: file, kernels
# traced (in the decode map), loops given iteration ranges, rewrite status and seconds, compile
# status and seconds, the first error.
# usage: bench/corpus/auto.sh [TRACE_REWRITE] [OUT] [JOBS]      (after checkout.sh)
#   ROWS=warps runs --auto=warps; NVCC=... picks the compiler
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tool=$(realpath "${1:-$repo/build/bin/trace-rewrite}")
out=$(realpath -m "${2:-$here/out-auto}")
jobs=${3:-2}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
rows=${ROWS:-ctas}
source "$here/flags.sh"
[[ -d $here/src ]] || { echo "no $here/src: run checkout.sh first" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/rows" "$out/logs"
cp -a "$here/src" "$out/tree"

# one FILE: rewrite, then compile; writes rows/<id>.tsv
one() {
  local f=$1 id base log rc=0 rewrite=pass compile=skipped reason= kernels=0 loops=0 rs=0 cs=
  id=$(echo "${f%.cu}" | tr / _)
  base=${f%.cu}
  log=$out/logs/$id
  # shellcheck disable=SC2046
  /usr/bin/time -f "%e %U %S" -o "$log.rewrite.time" "$tool" --traced --auto="$rows" "$f" \
    -o "$base.auto.cu" -- nvcc $(nvcc_flags "$f") > "$log.rewrite" 2>&1 || rc=$?
  rs=$(awk 'END {printf "%.2f", $2 + $3}' "$log.rewrite.time")
  if ((rc != 0)); then
    rewrite=fail
    reason=$({ grep -m1 -E 'error' "$log.rewrite" || tail -n1 "$log.rewrite"; } | cut -c1-200)
  else
    kernels=$(grep -o '"kernel": *"[^"]*"' "$(dirname "$f")/$(basename "$base").trace_map.json" | wc -l)
    loops=$(grep -o '"name": *"\(for\|while\|do\|range-for\) (line [0-9]*)"' \
      "$(dirname "$f")/$(basename "$base").trace_map.json" | wc -l)
    rc=0
    # shellcheck disable=SC2046
    /usr/bin/time -f "%e %U %S" -o "$log.compile.time" "$nvcc" $(nvcc_flags "$f") \
      -I "$repo/runtime/include" -I "$(dirname "$f")" -c "$base.auto.cu" -o "$base.auto.o" \
      > "$log.compile" 2>&1 || rc=$?
    rm -f "$base.auto.o"
    cs=$(awk 'END {printf "%.2f", $2 + $3}' "$log.compile.time")
    if ((rc == 0)); then
      compile=pass
    else
      compile=fail
      reason=$({ grep -m1 -E 'error' "$log.compile" || tail -n1 "$log.compile"; } | cut -c1-200)
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$kernels" "$loops" "$rewrite" "$rs" "$compile" \
    "$cs" "$(echo "$reason" | sed -e "s#$out/tree/##g" -e 's/\t/ /g')" > "$out/rows/$id.tsv"
  echo "$f: rewrite $rewrite (${rs}s, $kernels kernels, $loops loops), compile $compile (${cs}s)"
}
export -f one nvcc_flags
export out tool nvcc rows repo
cd "$out/tree"
grep -v '^#' "$here/files.txt" | cut -f1 | xargs -d '\n' -P "$jobs" -I{} bash -c 'one "$1"' _ {}
{
  printf 'file\tkernels\tloops\trewrite\trewrite_s\tcompile\tcompile_s\treason\n'
  cat "$out"/rows/*.tsv | LC_ALL=C sort
} > "$out/auto.tsv"
echo "$(grep -c $'\tpass\t[0-9.]*\tpass\t' "$out/auto.tsv") of $(($(wc -l < "$out/auto.tsv") - 1))" \
  "files rewritten with --auto=$rows and compiled; $out/auto.tsv"
