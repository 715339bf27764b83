#!/usr/bin/env bash
# Linear time (docs/PERFORMANCE.md, "Scaling"): for each input shape, doubling the input may
# cost at most 3x the CPU time. CPU time (user + system of the tool's process), not wall time, and
# the least of 3 runs per size, so other work on the machine does not count; the sizes are where
# the quadratic versions took seconds, so a return of one fails here.
# usage: check.sh TRACE-REWRITE
set -uo pipefail
tool=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen() { python3 "$here/../../bench/scaling/generate.py" "$@"; }

best_of_3() { # prints the least CPU time (user + system) of three runs of "$@"
  python3 - "$@" <<'PY'
import os, subprocess, sys
best = None
for _ in range(3):
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    best = cpu if best is None else min(best, cpu)
print(best)
PY
}

run() { # shape n mode
  local f="$work/$1_$2.cu" plain="$work/$1_$2.plain.cu"
  [[ -f $f ]] || gen "$1" "$2" "$f" "$plain"
  case $3 in
    strip) best_of_3 "$tool" "$f" -o "$work/out.cu" ;;
    verify) best_of_3 "$tool" --verify-strip "$f" ;;
    traced) best_of_3 "$tool" --traced "$f" -o "$work/out.cu" ;;
    explain) best_of_3 "$tool" --traced "$f" -o "$work/out.cu" --explain=terminal ;;
    against) best_of_3 "$tool" --verify-strip "$f" --against "$plain" ;;
  esac
}

fail=0
# --explain runs --traced and then the report, so its shapes cover --traced too.
for c in "oneline 200000 strip" "ranges 80000 strip" "endings 4000 against" "records 6000 verify" \
         "records 6000 explain" "kernels 1500 explain"; do
  read -r shape n mode <<< "$c"
  t1=$(run "$shape" "$n" "$mode")
  t2=$(run "$shape" $((2 * n)) "$mode")
  ratio=$(python3 -c "print(f'{$t2 / max($t1, 1e-3):.2f}')")
  verdict=ok
  python3 -c "import sys; sys.exit(0 if $ratio <= 3 else 1)" || { verdict=FAIL; fail=1; }
  printf '%-4s %-8s %-8s n=%-6s %6.2fs CPU  2n: %6.2fs  growth %sx\n' "$verdict" "$shape" "$mode" "$n" "$t1" "$t2" "$ratio"
done
exit $fail
