#!/usr/bin/env bash
# Runs the packed fuzz_strip and fuzz_ctrace (scripts/fuzz_pack.sh puts this script beside them)
# on a Linux x86 machine without clang, the targets at once, each in libFuzzer's fork mode:
#   bash run.sh SECONDS WORKERS [TARGET...]    TARGET: strip ctrace (default both)
#   e.g. bash .carry/fuzz/run.sh 540 7 on 16 cores, or bash .carry/fuzz/run.sh 540 14 strip
# Crashes are counted, not the end of the run (-ignore_crashes=1); each failing input is kept
# under $OUT/artifacts/<target>/. Writes $OUT/fuzz_<target>.log and $OUT/summary.txt (one line
# per target: executions, final cov/ft, crashes kept). Exits 1 if a target kept a crash. The
# grown corpus stays in $FUZZ_CORPUS (default /tmp/cutrace-fuzz-corpus): a second call on the
# same machine goes on from it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:?usage: run.sh SECONDS WORKERS [TARGET...]}
workers=${2:?usage: run.sh SECONDS WORKERS [TARGET...]}
shift 2
targets=("$@")
((${#targets[@]})) || targets=(strip ctrace)
out=${OUT:-$PWD/fuzz-out}
corpus=${FUZZ_CORPUS:-/tmp/cutrace-fuzz-corpus}
mkdir -p "$out"
work=$(mktemp -d) # libFuzzer's fork mode keeps its job files in the current folder
trap 'rm -rf "$work"' EXIT

# As scripts/fuzz.sh runs them: longest input, per-input timeout (s), dictionary. MAX_LEN_<target>
# in the environment sets another longest input (e.g. MAX_LEN_strip=4096: shorter inputs run
# faster; docs/reliability.md says which runs used what).
declare -A max_len=([strip]=${MAX_LEN_strip:-16384} [ctrace]=${MAX_LEN_ctrace:-65536})
declare -A dict=([strip]=annotations [ctrace]=ctrace)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
nproc >"$out/machine.txt"
uname -a >>"$out/machine.txt"

for t in "${targets[@]}"; do
  mkdir -p "$corpus/$t" "$out/artifacts/$t"
  (
    cd "$work" &&
      "$here/bin/fuzz_$t" -fork="$workers" -ignore_crashes=1 -max_total_time="$seconds" \
        -timeout=10 -max_len="${max_len[$t]}" -rss_limit_mb=4096 -dict="$here/dict/${dict[$t]}.dict" \
        -artifact_prefix="$out/artifacts/$t/" -print_final_stats=1 \
        "$corpus/$t" "$here/seeds/$t" "$here/regressions/$t" >"$out/fuzz_$t.log" 2>&1
    echo $? >"$out/fuzz_$t.status"
  ) &
done
wait

failed=0
for t in "${targets[@]}"; do
  # Fork mode's progress lines: "#N: cov: C ft: F corp: K exec/s: E oom/timeout/crash: a/b/c
  # time: Ts job: J dft_time: D"; the executions are the stat line's, when printed.
  last=$(grep -E '^#[0-9]+: cov:' "$out/fuzz_$t.log" | tail -1)
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$out/fuzz_$t.log" | tail -1)
  [[ -n $runs ]] || runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  kept=$(find "$out/artifacts/$t" -type f | wc -l)
  ((kept == 0)) || failed=1
  printf 'fuzz_%-7s %ss x %s workers  max_len %s  executions %s  status %s  crashes kept %s  last: %s\n' "$t" \
    "$seconds" "$workers" "${max_len[$t]}" "${runs:-?}" "$(cat "$out/fuzz_$t.status")" "$kept" "$last" |
    tee -a "$out/summary.txt"
done
exit $failed
