#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/reliability.md), each for SECONDS:
#   scripts/fuzz.sh [SECONDS] [TARGET[:SECONDS]...]
#                      TARGET: strip decode_map ctrace traced (default all); TARGET:S runs it S s
# Builds them in $BUILD_DIR (default build-fuzz; clang-19, ASan+UBSan), seeds from test/inputs and
# test/data plus fuzz/regressions, keeps the grown corpus in $BUILD_DIR/fuzz-corpus across runs,
# and prints one line per target: executions, speed, coverage, result. Exits 1 if any target
# crashed, leaked, timed out or broke a property; the input is saved in $BUILD_DIR/fuzz-artifacts.
# Targets run side by side, one process each, $FUZZ_JOBS at a time (default: the machine's cores):
# each still gets SECONDS of its own core.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=()
declare -A run_seconds=()
for arg in "$@"; do
  t=${arg%%:*}
  targets+=("$t")
  run_seconds[$t]=$seconds
  if [[ $arg == *:* ]]; then run_seconds[$t]=${arg#*:}; fi
done
if ((${#targets[@]} == 0)); then
  targets=(strip decode_map ctrace traced)
  for t in "${targets[@]}"; do run_seconds[$t]=$seconds; done
fi
build=${BUILD_DIR:-build-fuzz}

if [[ ! -f $build/CMakeCache.txt ]] || ! grep -q '^CUTRACE_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCUTRACE_BUILD_FUZZERS=ON >/dev/null
fi
cmake --build "$build" --target "${targets[@]/#/fuzz_}"

seeds=$build/fuzz-seeds corpus=$build/fuzz-corpus artifacts=$build/fuzz-artifacts logs=$build/fuzz-logs
rm -rf "$seeds"
bash fuzz/make_corpus.sh "$seeds" >/dev/null
mkdir -p "$artifacts" "$logs"

# Per target: longest input, per-input timeout (s), dictionary.
declare -A max_len=([strip]=16384 [decode_map]=8192 [ctrace]=65536 [traced]=8192)
# traced: one Clang parse of CUB and Thrust under ASan took 134 s on a loaded 2-core machine.
declare -A timeout=([strip]=10 [decode_map]=10 [ctrace]=10 [traced]=300)
declare -A dict=([strip]=annotations [decode_map]=decode_map [ctrace]=ctrace [traced]=annotations)

run_target() { # <target>: runs it, writes its log and its exit status
  local t=$1 dirs
  mkdir -p "$corpus/$t"
  dirs=("$corpus/$t" "$seeds/$t")
  [[ -d fuzz/regressions/$t ]] && dirs+=("fuzz/regressions/$t")
  set +e
  # LeakSanitizer stays on: a leak fails the run like a crash.
  "$build/fuzz/fuzz_$t" -max_total_time="${run_seconds[$t]}" -timeout="${timeout[$t]}" \
    -max_len="${max_len[$t]}" -rss_limit_mb=4096 -dict="fuzz/${dict[$t]}.dict" \
    -artifact_prefix="$artifacts/$t-" -print_final_stats=1 "${dirs[@]}" >"$logs/$t.log" 2>&1
  echo $? >"$logs/$t.rc"
}
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  rm -f "$logs/$t.rc"
  while (($(jobs -rp | wc -l) >= jobs_at_once)); do wait -n || true; done
  run_target "$t" &
done
wait

failed=0
for t in "${targets[@]}"; do
  log=$logs/$t.log
  rc=$(cat "$logs/$t.rc" 2>/dev/null || echo 1)
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  speed=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
  if ((rc == 0)); then
    result=ok
  else
    result="FAILED (exit $rc; $log)"
    failed=1
    grep -E 'ERROR|violated|SUMMARY|Test unit written' "$log" | head -5 >&2 || true
  fi
  printf 'fuzz_%-10s %4ss  runs %-10s exec/s %-7s %-32s %s\n' "$t" "${run_seconds[$t]}" "${runs:-?}" \
    "${speed:-?}" "$cov" "$result"
done
exit $failed
