#!/usr/bin/env bash
# How trace-rewrite's time and memory grow with the input: each shape at 1x, 10x, 100x, 1000x of
# a base size (1000x is the size each shape reached in issue reports), with the growth factor
# from one size to the next (10 is linear). Peak RSS from /usr/bin/time; one run per cell.
# usage: bench/scaling/run.sh [trace-rewrite] [largest factor: 1000]     (prints a markdown table)
#        ONLY=endings bench/scaling/run.sh ...   one shape only
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
largest=${2:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen() { python3 bench/scaling/generate.py "$@"; }

# shape  base  mode  (mode: strip, verify, traced, explain, against)
cases=(
  "oneline 50 strip"
  "ranges 20 strip"
  "records 100 strip"
  "records 100 verify"
  "records 100 traced"
  "records 100 explain"
  "kernels 40 explain"
  "endings 60 against"
)

run_case() { # shape n mode -> "seconds peak_mb"
  local shape=$1 n=$2 mode=$3 f="$work/$1_$2.cu" plain="$work/$1_$2.plain.cu"
  [[ -f $f ]] || gen "$shape" "$n" "$f" "$plain"
  local cmd
  case $mode in
    strip) cmd=("$tool" "$f" -o "$work/out.cu") ;;
    verify) cmd=("$tool" --verify-strip "$f") ;;
    traced) cmd=("$tool" --traced "$f" -o "$work/out.cu") ;;
    explain) cmd=(env CUTRACE_EXPLAIN_DIR="$work/explain" "$tool" --traced "$f" -o "$work/out.cu"
                  --explain=terminal) ;;
    against) cmd=("$tool" --verify-strip "$f" --against "$plain") ;;
  esac
  # --against on files that differ exits 1 by design; anything else must succeed.
  /usr/bin/time -f "%e %M" -o "$work/t" "${cmd[@]}" >/dev/null 2>"$work/err" ||
    [[ $mode == against ]] || { echo "FAILED: ${cmd[*]}" >&2; cat "$work/err" >&2; return 1; }
  read -r s kb < <(tail -1 "$work/t") # the last line: a failing command adds one before it
  echo "$s $((kb / 1024))"
}

echo "| shape | mode | n | seconds | peak MB | time growth | memory growth |"
echo "|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  read -r shape base mode <<< "$c"
  [[ -z ${ONLY:-} || $shape == "$ONLY" ]] || continue
  prev_s="" prev_m=""
  for ((factor = 1; factor <= largest; factor *= 10)); do
    n=$((base * factor))
    read -r s m < <(run_case "$shape" "$n" "$mode")
    growth=-; mgrowth=-
    if [[ -n $prev_s ]]; then
      growth=$(python3 -c "print(f'{$s / max($prev_s, 0.01):.1f}x')")
      mgrowth=$(python3 -c "print(f'{$m / max($prev_m, 1):.1f}x')")
    fi
    echo "| $shape | $mode | $n | $s | $m | $growth | $mgrowth |"
    prev_s=$s prev_m=$m
  done
done
