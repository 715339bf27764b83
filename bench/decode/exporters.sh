#!/usr/bin/env bash
# Exporter throughput and peak memory on synthetic runs of N events (docs/PERFORMANCE.md,
# "Exporters"), on this machine: for each N, a run file of launches of three kernels on two GPUs
# (test/browser/gen_run.cpp, 8 steps per row), then `trace-view RUN --sqlite` and
# `trace-view RUN --perfetto` under /usr/bin/time: events per second (wall) and peak RSS.
# usage: bench/decode/exporters.sh BUILD [N...]   (BUILD: a CMake build folder with trace-view;
#        default N: 1000000 4000000 16000000; EXPORTERS="sqlite perfetto" to choose)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1
shift
sizes=("${@:-1000000 4000000 16000000}")
read -ra sizes <<<"${sizes[*]}"
exporters=${EXPORTERS:-sqlite perfetto}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -Iruntime/include test/browser/gen_run.cpp "$build/runtime/libcutrace_analysis.a" \
  "$build/runtime/libcutrace_format.a" -o "$work/gen_run"
tv=$build/bin/trace-view
per_iteration=1408 # events of one iteration of gen_run (6 launches, 8 steps)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-9s %10s %10s %9s %12s %12s %10s\n' exporter events launches "file MB" "events/s" "peak RSS MB" "output MB"
for n in "${sizes[@]}"; do
  iterations=$(((n + per_iteration - 1) / per_iteration))
  "$work/gen_run" "$work/run" --iterations "$iterations" >"$work/gen.txt"
  launches=$(head -1 "$work/gen.txt" | awk '{print $2}')
  events=$((iterations * per_iteration))
  file_mb=$(($(stat -c %s "$work/run.ctrace") >> 20))
  for e in $exporters; do
    out=$work/out.$e
    rm -f "$out"
    /usr/bin/time -f '%e %M' -o "$work/time" "$tv" "$work/run.ctrace" "--$e" "$out" >/dev/null 2>&1
    read -r secs kb <"$work/time"
    printf '%-9s %10d %10d %9d %12.0f %12d %10d\n' "$e" "$events" "$launches" "$file_mb" \
      "$(echo "$events / $secs" | bc -l)" $((kb >> 10)) $(($(stat -c %s "$out") >> 20))
    rm -f "$out"
  done
done
