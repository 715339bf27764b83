#!/usr/bin/env bash
# Exporter throughput and peak memory on synthetic runs of N events (docs/PERFORMANCE.md, "4a"),
# on this machine: for each N, a run file of launches of three kernels on two GPUs
# (test/browser/gen_run.cpp, 8 steps per row), then `trace-view RUN --perfetto OUT`,
# `--sqlite OUT`, `--summary` and `--launch 7 --summary` under /usr/bin/time: events per second
# of wall time and of CPU time (user + system: what the machine's load does not change), peak
# RSS, and the output's size.
# usage: bench/decode/exporters.sh BUILD [N...]   (BUILD: a CMake build folder with trace-view;
#        default N: 1000000 4000000 16000000; EXPORTERS="perfetto sqlite" to choose among
#        perfetto, sqlite, perfetto-json, summary, launch-summary)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1
shift
sizes=("${@:-1000000 4000000 16000000}")
read -ra sizes <<<"${sizes[*]}"
exporters=${EXPORTERS:-perfetto sqlite summary launch-summary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -Iruntime/include test/browser/gen_run.cpp "$build/runtime/libcutrace_analysis.a" \
  "$build/runtime/libcutrace_format.a" -o "$work/gen_run"
tv=$build/bin/trace-view
per_iteration=1408 # events of one iteration of gen_run (6 launches, 8 steps)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-14s %10s %9s %8s %10s %12s %8s %9s\n' exporter events launches "file MB" "events/s" \
  "events/CPU s" "RSS MB" "output MB"
for n in "${sizes[@]}"; do
  iterations=$(((n + per_iteration - 1) / per_iteration))
  "$work/gen_run" "$work/run" --iterations "$iterations" --ctrace-only >"$work/gen.txt"
  sync # the run file's writeback is the generator's, not the exporters' to wait for
  launches=$(head -1 "$work/gen.txt" | awk '{print $2}')
  events=$((iterations * per_iteration))
  file_mb=$(($(stat -c %s "$work/run.ctrace") >> 20))
  for e in $exporters; do
    out=$work/out.$e
    rm -f "$out"
    case $e in
    summary) args=(--summary) ;;
    launch-summary) args=(--launch 7 --summary) ;;
    *) args=("--$e" "$out") ;;
    esac
    sync
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$tv" "$work/run.ctrace" "${args[@]}" \
      >/dev/null 2>&1
    read -r secs user sys kb <"$work/time"
    size=0
    [[ -f $out ]] && size=$(($(stat -c %s "$out") >> 20))
    printf '%-14s %10d %9d %8d %10.0f %12.0f %8d %9d\n' "$e" "$events" "$launches" "$file_mb" \
      "$(awk -v n="$events" -v t="$secs" 'BEGIN { print n / (t > 0.01 ? t : 0.01) }')" \
      "$(awk -v n="$events" -v t="$user" -v u="$sys" 'BEGIN { t += u; print n / (t > 0.01 ? t : 0.01) }')" \
      $((kb >> 10)) "$size"
    rm -f "$out"
  done
done
