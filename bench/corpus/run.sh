#!/usr/bin/env bash
# The corpus run, everything but nvcc: for each file of files.txt, annotate every kernel
# (annotate.py), strip and compare with the original byte for byte, --verify-strip, the traced
# rewrite (timed), and the two Clang parses it needs (host + device sm_90, timed as plain
# clang++-19 -fsyntax-only with the tool's compat flags). Writes OUT/results.tsv and makes OUT a
# self-contained folder for compile.sh (sources, traced outputs, runtime headers, flags).
# usage: bench/corpus/run.sh [TRACE_REWRITE] [OUT]
#   TRACE_REWRITE default build/bin/trace-rewrite; OUT default bench/corpus/out
#   (after checkout.sh; files.txt from select.sh; FILES=LIST runs another list of the same form)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tool=$(realpath "${1:-$repo/build/bin/trace-rewrite}")
out=$(realpath -m "${2:-$here/out}")
source "$here/flags.sh"
[[ -d $here/src ]] || { echo "no $here/src: run checkout.sh first" >&2; exit 2; }
[[ -x $tool ]] || { echo "no trace-rewrite at $tool" >&2; exit 2; }
cuda=/usr/local/cuda

rm -rf "$out"
mkdir -p "$out/logs" "$out/stubs"
cp -a "$here/src" "$out/tree"
cp -a "$repo/runtime/include" "$out/runtime-include"
cp "$here/flags.sh" "$here/compile.sh" "$out/"
cp "${FILES:-$here/files.txt}" "$out/files.txt"
# Stubs the tool's own parse uses (rewriter/compat), so the Clang timings parse what it parses.
: > "$out/stubs/texture_fetch_functions.h"
cp "$repo/rewriter/compat/cuda13_intrinsics.h" "$out/stubs/cutrace_cuda13_intrinsics.h"
"$tool" --version > "$out/tool-version.txt" 2>&1 || true
git -C "$repo" rev-parse HEAD > "$out/tool-commit.txt" 2>/dev/null || true

# timed LOG CMD...: runs CMD (stdout+stderr to LOG); sets rc and cpu (user+sys seconds)
timed() {
  local log=$1
  shift
  rc=0
  /usr/bin/time -f "%e %U %S" -o "$log.time" "$@" > "$log" 2>&1 || rc=$?
  cpu=$(awk 'END {printf "%.2f", $2 + $3}' "$log.time")
}
# first_error LOG: the first line of LOG that reports an error (else its last line), one line
first_error() {
  { grep -m1 -E 'error|Error|fatal' "$1" || tail -n1 "$1"; } |
    sed -e "s#$out/tree/##g" -e 's/\t/ /g' | cut -c1-240
}

cd "$out/tree"
columns=(file kernels annotated declarations loops loops_skipped annotate annotate_reason
  strip strip_reason verify verify_reason traced traced_reason traced_s clang_host_s
  clang_device_s nvcc_s)
(IFS=$'\t'; echo "${columns[*]}") > "$out/results.tsv"
grep -v '^#' "$out/files.txt" | while IFS=$'\t' read -r f nvcc_s; do
  id=$(echo "${f%.cu}" | tr / _)
  base=${f%.cu}
  annotated=$base.annotated.cu
  log=$out/logs/$id
  # shellcheck disable=SC2046
  read -r -a nflags <<< "$(nvcc_flags "$f")"
  read -r -a cflags <<< "$(clang_flags "$f")"

  row=$(python3 "$here/annotate.py" "$f" "$annotated" 2> "$log.annotate") && annotate=pass || annotate=fail
  IFS=$'\t' read -r _ kernels nann decls loops skipped _ areason <<< "$row"

  timed "$log.strip" "$tool" "$annotated" -o "$base.strip.cu"
  if ((rc != 0)); then
    strip=fail sreason=$(first_error "$log.strip")
  elif cmp -s "$base.strip.cu" "$f"; then
    strip=pass sreason=
  else
    strip=fail sreason="strip differs from the original: $(cmp "$base.strip.cu" "$f" | head -1)"
  fi

  timed "$log.verify" "$tool" --verify-strip "$annotated" --against "$f" -- nvcc "${nflags[@]}"
  if ((rc == 0)); then
    verify=pass vreason=$(grep -m1 'note:' "$log.verify" | sed "s#$out/tree/##g" | cut -c1-240 || true)
  else
    verify=fail vreason=$(first_error "$log.verify")
  fi

  timed "$log.traced" "$tool" --traced "$annotated" -o "$base.traced.cu" -- nvcc "${nflags[@]}"
  traced_s=$cpu
  if ((rc == 0)); then traced=pass treason=; else traced=fail treason=$(first_error "$log.traced"); fi

  clang=(clang++-19 -x cuda -std=c++17 --cuda-path=$cuda --cuda-gpu-arch=sm_90
    -Wno-unknown-cuda-version -w -fsyntax-only -I"$out/runtime-include" -isystem $cuda/include/cccl
    -isystem "$out/stubs" -include "$out/stubs/cutrace_cuda13_intrinsics.h" "${cflags[@]}")
  timed "$log.clang_host" "${clang[@]}" --cuda-host-only "$annotated"
  host_s=$cpu
  timed "$log.clang_device" "${clang[@]}" --cuda-device-only "$annotated"
  device_s=$cpu

  printf '%s\t' "$f" "$kernels" "$nann" "$decls" "$loops" "$skipped" "$annotate" "$areason" \
    "$strip" "$sreason" "$verify" "$vreason" "$traced" "$treason" "$traced_s" "$host_s" \
    "$device_s" >> "$out/results.tsv"
  printf '%s\n' "$nvcc_s" >> "$out/results.tsv"
  echo "$f: annotate $annotate ($nann/$kernels kernels), strip $strip, verify $verify, traced $traced (${traced_s}s; clang ${host_s}+${device_s}s; nvcc ${nvcc_s}s)"
done
echo "results in $out/results.tsv; nvcc compiles: bash $out/compile.sh [JOBS]"
