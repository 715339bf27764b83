#!/usr/bin/env bash
# The nvcc step of the corpus run: compiles each traced output that run.sh produced, for sm_90,
# with the project's own flags plus the cutrace runtime headers. Needs only nvcc and the folder
# run.sh wrote (run.sh copies this script into it), so it can run on another machine.
# usage: bash OUT/compile.sh [JOBS]          (NVCC=... to pick the compiler; RESUME=1 keeps the
#        results of files already compiled by an earlier, interrupted or partial run)
# writes OUT/compile.tsv: file, traced_compile (pass/fail/skipped), reason, seconds (user+sys)
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
jobs=${1:-$(nproc)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
source "$out/flags.sh"
[[ -f $out/results.tsv ]] || { echo "no $out/results.tsv: run run.sh first" >&2; exit 2; }
mkdir -p "$out/logs" "$out/compile.rows"
[[ ${RESUME:-0} == 1 ]] || rm -f "$out"/compile.rows/*
"$nvcc" --version | tail -1 > "$out/nvcc-version.txt"

# compile_one FILE TRACED_STATUS: writes compile.rows/<id>.tsv
compile_one() {
  local f=$1 traced=$2 id base dir rc=0
  id=$(echo "${f%.cu}" | tr / _)
  base=${f%.cu}
  dir=$(dirname "$f")
  [[ ${RESUME:-0} == 1 && -f $out/compile.rows/$id.tsv ]] && return 0
  if [[ $traced != pass ]]; then
    printf '%s\tskipped\ttraced rewrite failed\t\n' "$f" > "$out/compile.rows/$id.tsv"
    return 0
  fi
  # shellcheck disable=SC2046
  /usr/bin/time -f "%e %U %S" -o "$out/logs/$id.compile.time" "$nvcc" $(nvcc_flags "$f") \
    -I "$out/runtime-include" -I "$dir" -c "$base.traced.cu" -o "$base.traced.o" \
    > "$out/logs/$id.compile" 2>&1 || rc=$?
  rm -f "$base.traced.o"
  local secs reason=
  secs=$(awk 'END {printf "%.2f", $2 + $3}' "$out/logs/$id.compile.time")
  if ((rc == 0)); then
    printf '%s\tpass\t\t%s\n' "$f" "$secs" > "$out/compile.rows/$id.tsv"
  else
    reason=$({ grep -m1 -E 'error|fatal' "$out/logs/$id.compile" || tail -n1 "$out/logs/$id.compile"; } |
      sed -e "s#$out/tree/##g" -e 's/\t/ /g' | cut -c1-240)
    printf '%s\tfail\t%s\t%s\n' "$f" "$reason" "$secs" > "$out/compile.rows/$id.tsv"
  fi
  echo "$f: traced compile $([[ $rc == 0 ]] && echo pass || echo fail) (${secs}s)"
}
export -f compile_one nvcc_flags
export out nvcc
cd "$out/tree"
tail -n +2 "$out/results.tsv" | awk -F'\t' '{print $1 "\t" $13}' |
  xargs -d '\n' -P "$jobs" -I{} bash -c 'IFS=$'"'\t'"' read -r f t <<< "$1"; compile_one "$f" "$t"' _ {}
{
  printf 'file\ttraced_compile\treason\tseconds\n'
  cat "$out"/compile.rows/*.tsv | LC_ALL=C sort
} > "$out/compile.tsv"
echo "$(grep -c $'\tpass\t' "$out/compile.tsv") of $(($(wc -l < "$out/compile.tsv") - 1)) traced outputs compile; $out/compile.tsv"
