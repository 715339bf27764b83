#!/usr/bin/env bash
# Whole runs on a GPU machine (docs/PERFORMANCE.md section 5), from the repository root after
# test/device/prepare_whole_runs.sh here, with .carry carried:
#   1. the disk: `dd oflag=direct` of 1.2 GB into the folder the run files go to (before and
#      after the drain runs), and the same buffered with conv=fdatasync;
#   2. recording every launch of big_buffer (101 launches x 11.8 MB): the drain's rate (bytes of
#      the 100 timed launches / time from their first launch until cutrace::flush() returns),
#      plain and CUTRACE_COMPRESS=delta, 3 runs each; trace-view must say 101/101 launches;
#   3. the drain's host side alone (bench/drain/pack_write) and compressed records
#      (bench/drain/compress_records: zstd vs delta on the recorded run files);
#   4. an llm.c-style program, examples/loop at 4000 iterations (16,004 launches, 12,003 of the 3
#      annotated kernels, the default selection records 60): wall time plain, traced with the
#      default outputs (rendered by a background process), CUTRACE_RENDER=exit (rendered before
#      exit, as before), CUTRACE_FORMAT=ctrace and CUTRACE=0, 3 runs each, interleaved; when the
#      background page is ready after the program's exit.
# Writes $OUT/whole-runs/: results.md (the tables), drain.tsv, wall.tsv, pack_write.md,
# compress.md and logs.tgz (every program's output and exit lines).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
started=$(date +%s)
R=$PWD/build-whole-runs
O=${OUT:-$R/out}/whole-runs
rm -rf "$R" && mkdir -p "$R/logs" "$R/runs" "$O"
log() { echo "$*" | tee -a "$O/results.md"; }
# No step starts past WHOLE_RUNS_BUDGET_S seconds (default 330), so one device command ends with
# its results; a skipped step says so in results.md.
past() { (($(date +%s) - started > ${WHOLE_RUNS_BUDGET_S:-330})) && echo "skipped past the budget: $1" >>"$O/skipped.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$R/logs/gpu.txt" 2>&1

# ---- build: the runtime with g++ (the GPU machine has no SQLite for a cmake build of trace-view:
# trace-view comes prebuilt, static, in .carry/bin), the programs with nvcc
RT=$R/rt
bash test/device/build_runtime_gpp.sh "$RT" "$R/logs/build_runtime.txt" -I.carry/loop/prefix/include || exit 1
LOOP_CARRY=.carry/loop bash examples/loop/run_on_h200.sh build "$RT" "$R" >"$R/logs/build_loop.txt" 2>&1 &
nvcc -std=c++17 -O2 -arch=sm_90 -Iruntime/include -DCUTRACE_TRACED \
  .carry/gen/big_buffer/big_buffer.traced.cu "$RT/libcutrace.a" "$RT/libcutrace_analysis.a" \
  "$RT/libcutrace_format.a" -lpthread -o "$R/big_traced" >"$R/logs/build_big.txt" 2>&1 &
nvcc -std=c++17 -O2 -arch=sm_90 .carry/gen/big_buffer/big_buffer.plain.cu -o "$R/big_plain" \
  >>"$R/logs/build_big.txt" 2>&1 &
g++ -std=c++17 -O2 -Iruntime/include bench/drain/pack_write.cpp runtime/src/format/*.cpp \
  -o "$R/pack_write" >"$R/logs/build_pack.txt" 2>&1 &
wait
for b in loop_traced loop_plain big_traced big_plain pack_write; do
  [[ -x $R/$b ]] || { echo "BUILD FAILED: $b"; cat "$R"/logs/build_*.txt | tail -30; exit 1; }
done
TV=.carry/bin/trace-view
log "# Whole runs at disk speed, exit without the wait"
log ""
log "GPU: $(cat "$R/logs/gpu.txt"); $(nproc) CPUs; built in $(($(date +%s) - started)) s; $(df -h "$R" | tail -1 | awk '{print $1 " (" $2 ")"}')"
log ""

# ---- 1. the disk
dd_rate() { # dd_rate <extra dd flags...>: GB/s of 72 x 16 MiB written into $R/runs
  local line
  line=$(dd if=/dev/zero of="$R/runs/dd.bin" bs=16M count=72 "$@" 2>&1 | tail -1)
  rm -f "$R/runs/dd.bin"
  echo "$line" | sed -n 's/.*copied, \([0-9.]*\) s, .*/\1/p' | awk '{printf "%.2f", 72*16*1048576/$1/1e9}'
}
direct_before=$(dd_rate oflag=direct)
buffered=$(dd_rate conv=fdatasync)

# ---- 2. every launch of big_buffer
printf 'coding\trep\tlaunches\tloop_ms\tflushed_ms\tfile_bytes\tfile_GBps\trss_kb\tdecoded\tsync_ms\n' >"$O/drain.tsv"
drain_run() { # drain_run <coding> <rep>
  local dir=$R/runs/big_$1_$2 timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -v -o "$R/logs/big_$1_$2.time")
  env CUTRACE_OUTPUT="$dir" CUTRACE_LAUNCHES=all CUTRACE_FORMAT=ctrace CUTRACE_COMPRESS="$1" \
    "${timer[@]}" "$R/big_traced" 100 \
    >"$R/logs/big_$1_$2.out" 2>"$R/logs/big_$1_$2.err"
  local t0 t1 sync_ms f bytes line loop flushed rss decoded
  t0=$(date +%s%N); sync; t1=$(date +%s%N); sync_ms=$(((t1 - t0) / 1000000))
  f=$(ls "$dir"/*.ctrace | head -1)
  bytes=$(stat -c %s "$f")
  line=$(grep '^big_buffer:' "$R/logs/big_$1_$2.out")
  loop=$(sed -n 's/.*loop_ms=\([0-9.]*\).*/\1/p' <<<"$line")
  flushed=$(sed -n 's/.*flushed_ms=\([0-9.]*\).*/\1/p' <<<"$line")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$R/logs/big_$1_$2.time" 2>/dev/null)
  decoded=$("$TV" "$f" --summary 2>&1 >"$R/logs/big_$1_$2.summary" | grep decoded | tail -1)
  # the 100 timed launches are 100/101 of the file (the warm-up launch was flushed before t0)
  printf '%s\t%s\t101\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$loop" "$flushed" "$bytes" \
    "$(awk -v b="$bytes" -v ms="$flushed" 'BEGIN{printf "%.2f", b*100/101/ms/1e6}')" "$rss" \
    "${decoded##*: }" "$sync_ms" >>"$O/drain.tsv"
  [[ $2 == 1 ]] || rm -rf "$dir"
}
"$R/big_plain" 100 >"$R/logs/big_plain.out" 2>&1
for rep in 1 2 3; do
  past "drain rep $rep" || { drain_run none $rep; drain_run delta $rep; }
done
direct_after=$(dd_rate oflag=direct)

# ---- 3. host side and compression
past pack_write || "$R/pack_write" "$R/runs" 101 >"$O/pack_write.md" 2>&1
compress=.carry/bin/compress_records
[[ -x $compress ]] || compress=
if [[ -n $compress ]] && ! past compress_records; then
  { echo "big_buffer, every launch:"; "$compress" "$(ls "$R"/runs/big_none_1/*.ctrace | head -1)"; } \
    >"$O/compress.md" 2>&1
fi

# ---- 4. llm.c-style wall time
printf 'config\trep\twall_ms\texit\tpage_ready_after_exit_ms\tpage_bytes\texit_line\n' >"$O/wall.tsv"
wall_run() { # wall_run <config> <rep> <program> [VAR=value...]
  local config=$1 rep=$2 program=$3 dir=$R/runs/loop_$1_$2
  shift 3
  local t0 t1 t2 pid ready=- page=- rc
  t0=$(date +%s%N)
  env CUTRACE_OUTPUT="$dir" "$@" "$program" 4000 single >"$R/logs/loop_${config}_$rep.out" \
    2>"$R/logs/loop_${config}_$rep.err"
  rc=$?
  t1=$(date +%s%N)
  pid=$(sed -n 's/.*will be written by process \([0-9]*\),.*/\1/p' "$R/logs/loop_${config}_$rep.err")
  if [[ -n $pid ]]; then # wait for the page (never inside the timed part, never into the next run)
    while kill -0 "$pid" 2>/dev/null && (($(date +%s%N) - t1 < 60000000000)); do sleep 0.01; done
    t2=$(date +%s%N); ready=$(((t2 - t1) / 1000000))
  fi
  local html
  html=$(ls "$dir"/*.html 2>/dev/null | head -1)
  [[ -n $html ]] && page=$(stat -c %s "$html")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$config" "$rep" "$(((t1 - t0) / 1000000))" "$rc" "$ready" \
    "$page" "$(grep '^cutrace' "$R/logs/loop_${config}_$rep.err" | tr '\t\n' '  ')" >>"$O/wall.tsv"
  [[ $rep == 1 ]] || rm -rf "$dir"
}
for rep in 1 2 3; do
  past "loop rep $rep" && break
  wall_run plain $rep "$R/loop_plain"
  wall_run default $rep "$R/loop_traced"
  wall_run render_at_exit $rep "$R/loop_traced" CUTRACE_RENDER=exit
  wall_run ctrace_only $rep "$R/loop_traced" CUTRACE_FORMAT=ctrace
  wall_run off $rep "$R/loop_traced" CUTRACE=0
done

python3 - "$O" "$direct_before" "$direct_after" "$buffered" >>"$O/results.md" <<'PY'
import csv, statistics, sys
o, before, after, buffered = sys.argv[1:5]
def rows(name): return list(csv.DictReader(open(f"{o}/{name}"), delimiter="\t"))
print(f"Disk (dd of 1.21 GB into the run files' folder): direct {before} GB/s before the drain runs, {after} GB/s after; buffered with conv=fdatasync {buffered} GB/s.\n")
def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else float("nan")
def num(v):
    try: return float(v)
    except (TypeError, ValueError): return None
d = rows("drain.tsv")
# Records drained per second: the plain file's bytes (the records as recorded) over the time to
# flush; the file's own bytes per second are the disk's share.
raw_bytes = med([num(r["file_bytes"]) for r in d if r["coding"] == "none"])
print("| every launch of big_buffer (101 x 11.8 MB) | runs | records drained GB/s (median) | min-max | file written GB/s | loop ms | flushed ms | file MB | peak RSS MB | trace-view | sync after exit ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for coding in ("none", "delta"):
    rs = [r for r in d if r["coding"] == coding]
    if not rs: continue
    rate = [raw_bytes * 100 / 101 / num(r["flushed_ms"]) / 1e6 for r in rs if num(r["flushed_ms"])]
    m = lambda k: med([num(r[k]) for r in rs])
    rss = max([num(r["rss_kb"]) or 0 for r in rs]) / 1e3
    print(f"| CUTRACE_COMPRESS={coding} | {len(rs)} | {med(rate):.2f} | {min(rate):.2f}-{max(rate):.2f} | {m('file_GBps'):.2f} | "
          f"{m('loop_ms'):.1f} | {m('flushed_ms'):.1f} | {m('file_bytes')/1e6:.0f} | {rss:.0f} | "
          f"{', '.join(sorted(set(r['decoded'] for r in rs)))} | {m('sync_ms'):.0f} |")
w = rows("wall.tsv")
plain = med([num(r["wall_ms"]) for r in w if r["config"] == "plain"])
print("\n| examples/loop 4000 iterations (16,004 launches) | runs | wall ms (median of 3) | ratio to plain | exit | page ready after exit ms | page bytes |")
print("|---|---|---|---|---|---|---|")
for config in ("plain", "default", "render_at_exit", "ctrace_only", "off"):
    rs = [r for r in w if r["config"] == config]
    if not rs: continue
    wall = med([num(r["wall_ms"]) for r in rs])
    ready = [r["page_ready_after_exit_ms"] for r in rs if r["page_ready_after_exit_ms"] != "-"]
    print(f"| {config} | {len(rs)} | {wall:.0f} | {wall/plain:.3f}x | {','.join(sorted(set(r['exit'] for r in rs)))} | "
          f"{','.join(ready) or '-'} | {rs[0]['page_bytes']} |")
print("\nExit lines (first run of each):\n")
for config in ("default", "render_at_exit", "ctrace_only"):
    for r in w:
        if r["config"] == config and r["rep"] == "1":
            print(f"- {config}: `{r['exit_line'].strip()}`")
PY
{ echo; echo "big_buffer, plain build (no recording): $(grep '^big_buffer:' "$R/logs/big_plain.out")";
  echo; echo "## bench/drain/pack_write (host side alone)"; cat "$O/pack_write.md"; echo;
  echo "## bench/drain/compress_records"; cat "$O/compress.md" 2>/dev/null; } >>"$O/results.md"
cat "$O/skipped.txt" >>"$O/results.md" 2>/dev/null
tar czf "$O/logs.tgz" -C "$R" logs
echo "total $(($(date +%s) - started)) s" >>"$O/results.md"
cat "$O/results.md"
