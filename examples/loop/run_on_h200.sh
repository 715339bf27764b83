#!/usr/bin/env bash
# examples/loop measured on a GPU machine that has nvcc and cmake but no Clang, in two steps (from
# the repository root):
#   here:   examples/loop/run_on_h200.sh prepare [<trace-rewrite>]    (default build/bin/...)
#           writes the traced source with its decode map, the stripped source, and nlohmann's
#           headers and CMake package (the runtime needs them) under .carry/loop/ (ignored by git)
#   device: examples/loop/run_on_h200.sh run          with .carry/loop carried
#           builds the runtime and trace-view with cmake, the traced and the plain (stripped)
#           program with nvcc, runs the loop plain, traced (default policy), traced with every
#           launch recorded and traced with CUTRACE=0, times trace-view on the traces kept, and
#           writes $OUT/loop/: results.md, results.tsv, logs.tar.gz and trace_default_1000.tar.gz
#           (the output folder of one default-policy run of the smallest size, 1000 iterations)
#   either: examples/loop/run_on_h200.sh build <runtime build dir> <output dir>
#           the two nvcc builds alone, against a cutrace build's runtime/ folder
# LOOP_CARRY picks the prepared folder (default .carry/loop). Knobs of `run`: LOOP_SIZES
# (iterations, default "1000 10000"), LOOP_REPS (default 3), LOOP_EXTRA_MODES (default
# "graph streams2 gpus2", plain and traced at LOOP_EXTRA_N, default 1000 iterations), LOOP_ALL
# (the CUTRACE_LAUNCHES value that records every launch, default "all"), LOOP_FORMAT (sets
# CUTRACE_FORMAT for traced runs; unset: the runtime's default), LOOP_RUN_TIMEOUT (seconds a run
# may take, default 120), LOOP_BUDGET_S (no run starts past this many seconds after `run` began,
# default 420, so one 600 s device command ends with its results; results.tsv is written to $OUT
# as the runs go).
set -uo pipefail
cd "$(dirname "$0")/../.."
carry=${LOOP_CARRY:-.carry/loop}
src=examples/loop

prepare() {
  local tool=${1:-build/bin/trace-rewrite}
  rm -rf "$carry" && mkdir -p "$carry/gen" "$carry/prefix/include" "$carry/prefix/share/cmake" ||
    return 1
  # Relative paths: the #line directives then name the source as the device checkout has it.
  "$tool" --traced "$src/layer.cu" -o "$carry/gen/layer.traced.cu" -- -std=c++17 || return 1
  "$tool" "$src/layer.cu" -o "$carry/gen/layer.cu" || return 1
  cp -r /usr/include/nlohmann "$carry/prefix/include/" &&
    cp -r /usr/share/cmake/nlohmann_json "$carry/prefix/share/cmake/" &&
    cp -r /usr/include/CLI "$carry/prefix/include/" &&
    cp -r /usr/share/cmake/CLI11 "$carry/prefix/share/cmake/" || return 1
  find "$carry/gen" -type f | sort
}

# The traced program links the default runtime `cutrace` (every output format), as cutrace-nvcc
# and cutrace_instrument() do; the plain one is the stripped source through plain nvcc.
build() { # <runtime build dir> <output dir>
  local rt=$1 out=$2
  mkdir -p "$out" || return 1
  # -I$src: the sources' "../common/..." includes resolve from there, whatever folder they sit in.
  local nvcc=(nvcc -std=c++17 -O2 -arch=sm_90 -Iruntime/include -I"$src")
  "${nvcc[@]}" -DCUTRACE_TRACED "$carry/gen/layer.traced.cu" "$rt/libcutrace.a" \
    "$rt/libcutrace_analysis.a" "$rt/libcutrace_format.a" -lpthread -o "$out/loop_traced" \
    >"$out/build_traced.txt" 2>&1 &
  "${nvcc[@]}" "$carry/gen/layer.cu" -lpthread -o "$out/loop_plain" >"$out/build_plain.txt" 2>&1 &
  wait
  local b status=0
  for b in traced plain; do
    [[ -x $out/loop_$b ]] || { echo "BUILD FAILED: $b"; cat "$out/build_$b.txt"; status=1; }
  done
  return $status
}

# One run: wall time around the process, peak RSS, the output folder's size, the loop's own line.
measure() { # <config> <mode> <iterations> <rep> <program> [VAR=value...]
  local config=$1 mode=$2 n=$3 rep=$4 program=$5
  shift 5
  local tag=${config}_${mode}_${n}_${rep}
  if (($(date +%s) - started > ${LOOP_BUDGET_S:-420})); then
    echo "$tag: skipped (past LOOP_BUDGET_S)"
    printf '%s\t%s\t%s\t%s\tskipped\n' "$config" "$mode" "$n" "$rep" >>"$tsv"
    return
  fi
  local out=$R/runs/$tag log=$R/logs/$tag timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v -o "$log.time")
  local t0 t1 rc
  t0=$(date +%s%N)
  env CUTRACE_OUTPUT="$out" "$@" timeout "${LOOP_RUN_TIMEOUT:-120}" "${timer[@]}" \
    "$program" "$n" "$mode" >"$log.out" 2>"$log.err"
  rc=$?
  t1=$(date +%s%N)
  local line rss=- bytes=0 files=0 exit_line
  line=$(grep '^loop: mode=' "$log.out" | tail -1)
  [[ -f $log.time ]] && rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$log.time")
  if [[ -d $out ]]; then
    bytes=$(du -sb "$out" | cut -f1)
    files=$(find "$out" -type f | wc -l)
  fi
  exit_line=$(grep '^cutrace' "$log.err" | tail -1 | tr '\t' ' ')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$config" "$mode" "$n" \
    "$rep" "$rc" "$(field result "$line")" "$(field loop_event_ms "$line")" \
    "$(field loop_host_ms "$line")" "$(field us_per_iteration "$line")" \
    "$(((t1 - t0) / 1000000))" "${rss:--}" \
    "$(sed -n 's/^loop: peak_rss_kb=\([0-9]*\).*/\1/p' "$log.out" | tail -1)" "$bytes" "$files" \
    "${exit_line:--}" >>"$tsv"
  echo "$tag: exit $rc, $(((t1 - t0) / 1000000)) ms, ${bytes} bytes in $files files; $line"
  # Kept for the tar and the trace-view timings; every other output folder goes (disk).
  [[ $tag == traced_default_single_*_1 || $tag == traced_all_single_${small}_1 ]] || rm -rf "$out"
}

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# trace-view on a kept output folder: decode and HTML of all its .ctrace files, timed.
time_view() { # <tag>
  local dir=$R/runs/$1 t0 t1 rc
  local traces=("$dir"/*.ctrace)
  [[ -e ${traces[0]} ]] || { printf '%s\t-\t-\t-\tno .ctrace\n' "$1" >>"$R/view.tsv"; return; }
  if (($(date +%s) - started > ${LOOP_BUDGET_S:-420})); then
    printf '%s\t-\t-\t-\tskipped (past LOOP_BUDGET_S)\n' "$1" >>"$R/view.tsv"
    return
  fi
  t0=$(date +%s%N)
  timeout "${LOOP_RUN_TIMEOUT:-120}" "$R/bin/trace-view" "${traces[@]}" --html "$R/view_$1.html" \
    >"$R/logs/view_$1.txt" 2>&1
  rc=$?
  t1=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "${#traces[@]}" "$(((t1 - t0) / 1000000))" "$rc" \
    "$(stat -c %s "$R/view_$1.html" 2>/dev/null || echo -)" >>"$R/view.tsv"
  rm -f "$R/view_$1.html"
}

run() {
  export PATH=/usr/local/cuda/bin:$PATH
  R=$PWD/build-loop-device
  started=$(date +%s)
  tsv=$OUT/loop/results.tsv
  rm -rf "$R" && mkdir -p "$R/logs" "$R/runs" "$OUT/loop" || return 1
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv \
    >"$R/logs/gpu.txt" 2>&1
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  if ! { cmake -S . -B "$R" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCUTRACE_BUILD_TOOLS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/$carry/prefix" && cmake --build "$R" -j "$(nproc)" \
    --target cutrace trace-view; } >"$R/logs/build_runtime.txt" 2>&1; then
    echo "BUILD FAILED: runtime"
    tail -40 "$R/logs/build_runtime.txt"
    return 1
  fi
  build "$R/runtime" "$R" || return 1
  mv "$R"/build_traced.txt "$R"/build_plain.txt "$R/logs/"

  printf 'config\tmode\titerations\trep\texit\tresult\tloop_event_ms\tloop_host_ms\tus_per_iteration\twall_ms\trss_kb\tvmhwm_kb\toutput_bytes\toutput_files\tcutrace_exit_line\n' \
    >"$tsv"
  printf 'output\tctrace_files\tms\texit\thtml_bytes\n' >"$R/view.tsv"
  local traced_env=()
  [[ -n ${LOOP_FORMAT:-} ]] && traced_env=(CUTRACE_FORMAT="$LOOP_FORMAT")
  local rep n mode small
  small=$(tr ' ' '\n' <<<"${LOOP_SIZES:-1000 10000}" | sort -n | head -1)
  for rep in $(seq 1 "${LOOP_REPS:-3}"); do
    for n in ${LOOP_SIZES:-1000 10000}; do
      measure plain single "$n" "$rep" "$R/loop_plain"
      measure traced_default single "$n" "$rep" "$R/loop_traced" "${traced_env[@]}"
      measure traced_all single "$n" "$rep" "$R/loop_traced" "${traced_env[@]}" \
        CUTRACE_LAUNCHES="${LOOP_ALL:-all}"
      measure traced_off single "$n" "$rep" "$R/loop_traced" CUTRACE=0
    done
    for mode in ${LOOP_EXTRA_MODES:-graph streams2 gpus2}; do
      measure plain "$mode" "${LOOP_EXTRA_N:-1000}" "$rep" "$R/loop_plain"
      measure traced_default "$mode" "${LOOP_EXTRA_N:-1000}" "$rep" "$R/loop_traced" \
        "${traced_env[@]}"
    done
  done
  # Every launch of the largest size can be GBs: the smallest size only for that one.
  for n in ${LOOP_SIZES:-1000 10000}; do
    time_view "traced_default_single_${n}_1"
  done
  time_view "traced_all_single_${small}_1"
  summarize "$tsv" "$R/view.tsv" "$R/logs/gpu.txt" >"$OUT/loop/results.md"
  cat "$OUT/loop/results.md"

  tar -czf "$OUT/loop/logs.tar.gz" -C "$R" logs view.tsv
  local kept=traced_default_single_${small}_1 tarball=$OUT/loop/trace_default_${small}.tar.gz
  if [[ -d $R/runs/$kept ]]; then
    tar -czf "$tarball" -C "$R/runs" "$kept"
    # The copy back takes 16 MiB a file: past that, the .ctrace files alone.
    if (($(stat -c %s "$tarball") > 15 * 1024 * 1024)); then
      (cd "$R/runs" && find "$kept" -name '*.ctrace' -print0 | tar -czf "$tarball" --null -T -)
    fi
  fi
  ls -l "$OUT/loop"
}

# results.tsv -> one markdown table: medians over the repetitions, ratios to the plain build.
summarize() { # <results.tsv> <view.tsv> <gpu.txt>
  python3 - "$@" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
skipped = [r for r in rows if r["exit"] == "skipped"]
rows = [r for r in rows if r["exit"] != "skipped"]
def num(v):
    try: return float(v)
    except ValueError: return None
def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None
groups = {}
for r in rows:
    groups.setdefault((r["mode"], int(r["iterations"]), r["config"]), []).append(r)
stat = {}
for key, rs in groups.items():
    stat[key] = {
        "host": med([num(r["loop_host_ms"]) for r in rs]),
        "event": med([num(r["loop_event_ms"]) for r in rs]),
        "wall": med([num(r["wall_ms"]) for r in rs]),
        "rss": max([num(r["rss_kb"]) or num(r["vmhwm_kb"]) or 0 for r in rs]),
        "bytes": med([num(r["output_bytes"]) for r in rs]),
        "files": med([num(r["output_files"]) for r in rs]),
        "exits": sorted({r["exit"] + "/" + (r["result"] or "-") for r in rs}),
        "line": rs[0]["cutrace_exit_line"], "n": len(rs)}
def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"
def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.3f}x"
print("# examples/loop: plain vs traced\n")
print("GPU: " + " | ".join(l.strip() for l in open(sys.argv[3]).read().splitlines()[1:]) + "\n")
print("Medians over the repetitions (runs); loop = the timed iterations on the host clock, launch "
      "to final synchronisation; wall = the whole process (start-up, CPU reference, exit work); "
      "peak RSS = max over the runs (/usr/bin/time -v, else VmHWM at exit); ratios are to the "
      "plain build of the same mode and size.\n")
print("| mode | iterations | build | runs | exit/result | loop ms | loop ratio | GPU events ms | wall ms | wall ratio | peak RSS kB | output bytes | files | cutrace exit line |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (mode, n, config), s in sorted(stat.items()):
    base = stat.get((mode, n, "plain"), {})
    print(f"| {mode} | {n} | {config} | {s['n']} | {' '.join(s['exits'])} | {fmt(s['host'])} | "
          f"{ratio(s['host'], base.get('host'))} | {fmt(s['event'])} | {fmt(s['wall'], 0)} | "
          f"{ratio(s['wall'], base.get('wall'))} | {fmt(s['rss'], 0)} | {fmt(s['bytes'], 0)} | "
          f"{fmt(s['files'], 0)} | {s['line'].replace('|', '/')} |")
if skipped:
    print(f"\n{len(skipped)} run(s) skipped past LOOP_BUDGET_S: " +
          ", ".join(f"{r['config']} {r['mode']} {r['iterations']} #{r['rep']}" for r in skipped))
sizes = sorted({n for (_, n, _) in stat})
if len(sizes) > 1:
    print(f"\nPeak RSS at {sizes[-1]} iterations over {sizes[0]} (mode single):\n")
    for config in sorted({c for (m, _, c) in stat if m == "single"}):
        lo, hi = stat.get(("single", sizes[0], config)), stat.get(("single", sizes[-1], config))
        if lo and hi:
            print(f"- {config}: {fmt(lo['rss'], 0)} -> {fmt(hi['rss'], 0)} kB ({ratio(hi['rss'], lo['rss'])})")
view = list(csv.DictReader(open(sys.argv[2]), delimiter="\t"))
if view:
    print("\ntrace-view --html on the output folder of one run (all its .ctrace files):\n")
    print("| output | .ctrace files | ms | exit | HTML bytes |\n|---|---|---|---|---|")
    for v in view:
        print(f"| {v['output']} | {v['ctrace_files']} | {v['ms']} | {v['exit']} | {v['html_bytes']} |")
PY
}

case ${1:-} in
  prepare) shift; prepare "$@" ;;
  build) shift; build "$@" ;;
  run) run ;;
  *) sed -n '2,23p' "$0"; exit 2 ;;
esac
