#!/usr/bin/env bash
# Writes files.txt: the corpus files whose original compiles with nvcc for sm_90.
# Candidates: the .cu files under cuda-samples/Samples and ggml/src/ggml-cuda that contain
# __global__ (ggml's template-instances/ hold none: their kernels live in .cuh headers), sorted,
# one in SAMPLES_STRIDE (default 3) of cuda-samples and one in GGML_STRIDE (default 2) of ggml,
# which gives about 70 files; STRIDE=1 takes every candidate. Each nvcc -c result (status, times,
# log) is cached in cache/ by file content and flags, so a rerun compiles only what changed.
# usage: bench/corpus/select.sh [JOBS]          (after checkout.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/flags.sh"
jobs=${1:-1}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
src=$here/src
cache=$here/cache
mkdir -p "$cache"
cd "$src"

candidates() { # DIR STRIDE
  find "$1" -name '*.cu' -not -path '*/template-instances/*' | LC_ALL=C sort |
    xargs grep -l '__global__' | awk -v s="$2" '(NR - 1) % s == 0'
}
{
  candidates cuda-samples/Samples "${SAMPLES_STRIDE:-${STRIDE:-3}}"
  candidates ggml/src/ggml-cuda "${GGML_STRIDE:-${STRIDE:-2}}"
} > "$cache/candidates.txt"

# check_one FILE: compiles FILE once per (content, flags); prints nothing
check_one() {
  local f=$1 key
  key=$( (sha1sum < "$f"; nvcc_flags "$f"; "$nvcc" --version | tail -1) | sha1sum | cut -c1-16)
  [[ -f $cache/$key.rc ]] && return 0
  local rc=0
  # shellcheck disable=SC2046
  /usr/bin/time -f "%e %U %S" -o "$cache/$key.time" nice -n 10 "$nvcc" $(nvcc_flags "$f") \
    -c "$f" -o "$cache/$key.o" > "$cache/$key.log" 2>&1 || rc=$?
  rm -f "$cache/$key.o"
  echo "$rc" > "$cache/$key.rc"
  echo "$f" > "$cache/$key.path"
}
export -f check_one nvcc_flags
export nvcc cache
xargs -a "$cache/candidates.txt" -P "$jobs" -I{} bash -c 'check_one "$1"' _ {}

samples_commit=$(sed -n 's/^samples_commit=//p' "$here/checkout.sh")
ggml_commit=$(sed -n 's/^ggml_commit=//p' "$here/checkout.sh")
{
  echo "# Corpus for bench/corpus/run.sh: files whose original compiles with nvcc for sm_90 (select.sh)."
  echo "# NVIDIA/cuda-samples $samples_commit"
  echo "# ggml-org/ggml $ggml_commit"
  echo "# $("$nvcc" --version | tail -1)"
  echo "# candidates: $(wc -l < "$cache/candidates.txt"); path<TAB>nvcc -c seconds (user+sys, original, on the selecting machine)"
  while IFS= read -r f; do
    key=$( (sha1sum < "$f"; nvcc_flags "$f"; "$nvcc" --version | tail -1) | sha1sum | cut -c1-16)
    if [[ $(cat "$cache/$key.rc") == 0 ]]; then
      read -r _ user sys < "$cache/$key.time"
      printf '%s\t%s\n' "$f" "$(python3 -c "print(f'{$user + $sys:.2f}')")"
    else
      echo "excluded (original does not compile): $f: $(grep -m1 -i 'error' "$cache/$key.log" || tail -1 "$cache/$key.log")" >&2
    fi
  done < "$cache/candidates.txt"
} > "$here/files.txt"
echo "$(grep -vc '^#' "$here/files.txt") of $(wc -l < "$cache/candidates.txt") candidates compile; list in $here/files.txt"
