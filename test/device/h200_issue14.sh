#!/usr/bin/env bash
# Issue 14 on an H200 (see prepare_h200.sh, which writes the traced and stripped sources into
# .carry/ here): builds examples/layernorm and examples/hopper_pipeline stripped and traced, runs
# the wgmma descriptor probe, checks both examples' results at full size and on a reduced grid
# (the GEMM also with one wgmma group kept in flight, HOPPER_MMA_IN_FLIGHT=1),
# records the reduced grids as fixtures (.ctrace, checked by check_ctrace), times traced against
# stripped (the traced build's original kernel and its twin interleaved in one process, and the
# stripped build, over rounds), the per-event cost of per-warp rows against per-CTA rows
# (bench/gpu/slice_cost.cu) and the SGEMM of bench/gpu/gemm_overhead.cu, and prints a summary.
#
#   bash test/device/h200_issue14.sh [arch] [output dir]     arch default sm_90a; output dir
#                                                            default $OUT, else build-issue14-out
# Knobs: ISSUE14_ROUNDS (timing rounds, default 3), ISSUE14_BUDGET_S (no timing step starts past
# this many seconds, default 420), ISSUE14_JOBS (parallel compiles, default all cores),
# ISSUE14_BUILD_ONLY=1 (stop after the builds: runs without a GPU). Writes <out>/issue14/: summary.md, results.tsv, logs/,
# fixtures/ (layernorm/, hopper_pipeline/: what the traced programs wrote for the reduced grids),
# sass/. Exit 1 when a build, a result check or a fixture check failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90a}
out=${2:-${OUT:-$PWD/build-issue14-out}}/issue14
export PATH=/usr/local/cuda/bin:$PATH
G=.carry/gen
if [[ ! -d $G/layernorm || ! -d $G/issue14_stripped ]]; then
  echo "no $G/layernorm: run test/device/prepare_h200.sh where trace-rewrite builds, carry .carry"
  exit 2
fi
R=$PWD/build-issue14
rm -rf "$R" "$out" && mkdir -p "$R/obj" "$out/logs" "$out/fixtures" "$out/sass"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
started=$(date +%s)
tsv=$out/results.tsv
printf 'step\tstatus\tdetail\n' >"$tsv"
failures=0
elapsed() { echo $(($(date +%s) - started)); }
step() { echo "== $* ($(elapsed) s)"; }
# result <step> <ok|FAIL|skipped|value> <detail>: one line of results.tsv; FAIL counts.
result() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$tsv"
  if [[ $2 == FAIL ]]; then failures=$((failures + 1)); fi
  echo "   $1: $2 $3"
}
in_budget() { (($(elapsed) < ${ISSUE14_BUDGET_S:-420})); }
# run_logged <log name> <command...>: output to logs/<name>.txt; returns the command's status.
run_logged() {
  local name=$1
  shift
  local rc=0
  "$@" >"$out/logs/$name.txt" 2>&1 || rc=$?
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpu.txt" 2>&1 ||
  true
NVCC=(nvcc -std=c++17 -O3 -arch="$arch" -Iruntime/include -I.carry/include)

# bg <command...>: runs it in the background, at most ISSUE14_JOBS (default: all cores) at once.
bg() {
  while (($(jobs -rp | wc -l) >= ${ISSUE14_JOBS:-$(nproc)})); do wait -n || true; done
  "$@" &
}
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }

step "build: runtime objects and stripped programs"
for f in runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" \
  runtime/src/capture/*.cpp runtime/src/capture/outputs/all_formats.cpp; do
  bg run_logged "build_obj_$(basename "${f%.cpp}")" \
    "${NVCC[@]}" -x cu -c "$f" -o "$R/obj/$(basename "${f%.cpp}").o"
done
build() { # build <name> <source> [nvcc options...]: logs/build_<name>.txt
  local name=$1 src=$2
  shift 2
  "${NVCC[@]}" -Xptxas -v "$@" "$src" -o "$R/$name" >"$out/logs/build_$name.txt" 2>&1
}
bg build layernorm_stripped $G/issue14_stripped/layernorm.cu -Iexamples/layernorm
# The GEMM with both descriptor readings (pipeline_tiles.h): the probe picks the one used below.
bg build hopper_stripped $G/issue14_stripped/hopper_pipeline.cu -Iexamples/hopper_pipeline
bg build hopper_stripped_flipped $G/issue14_stripped/hopper_pipeline.cu \
  -Iexamples/hopper_pipeline -DHOPPER_LEADING_IS_K=0
# And with one wgmma group kept in flight across stages (HOPPER_MMA_IN_FLIGHT, hopper_pipeline.cu).
bg build hopper_inflight_stripped $G/issue14_stripped/hopper_pipeline.cu \
  -Iexamples/hopper_pipeline -DHOPPER_MMA_IN_FLIGHT=1
bg build wgmma_probe examples/hopper_pipeline/wgmma_probe.cu
bg build gemm_stripped $G/bench_stripped/gemm_overhead.cu
drain
shopt -s nullglob
OBJ=("$R"/obj/*.o)
shopt -u nullglob

step "build: traced programs (${#OBJ[@]} runtime objects)"
bg build layernorm_traced $G/layernorm/layernorm.traced.cu -I$G/layernorm -Iexamples/layernorm \
  "${OBJ[@]}"
bg build hopper_traced $G/hopper_pipeline/hopper_pipeline.traced.cu -I$G/hopper_pipeline \
  -Iexamples/hopper_pipeline "${OBJ[@]}"
bg build hopper_traced_flipped $G/hopper_pipeline/hopper_pipeline.traced.cu \
  -I$G/hopper_pipeline -Iexamples/hopper_pipeline -DHOPPER_LEADING_IS_K=0 "${OBJ[@]}"
bg build hopper_inflight_traced $G/hopper_pipeline/hopper_pipeline.traced.cu \
  -I$G/hopper_pipeline -Iexamples/hopper_pipeline -DHOPPER_MMA_IN_FLIGHT=1 "${OBJ[@]}"
bg build slice_cost $G/slice_cost/slice_cost.traced.cu -I$G/slice_cost "${OBJ[@]}"
bg build gemm_traced $G/gemm_traced/gemm_overhead.traced.cu -I$G/gemm_traced "${OBJ[@]}"
build_check_ctrace() {
  "${NVCC[@]}" -x cu -c test/device/check_ctrace.cpp -o "$R/check_ctrace.o" &&
    "${NVCC[@]}" "$R/check_ctrace.o" "${OBJ[@]}" -o "$R/check_ctrace"
}
bg run_logged build_check_ctrace build_check_ctrace
drain
# "kernel: N regs, M B spilled; ..." from ptxas -v, for the kernels of the examples.
ptxas_usage() {
  awk '/Compiling entry function/ {
         skip = /clock_probe|reference_gemm/
         n = $0; sub(/.*function ./, "", n); sub(/[^A-Za-z0-9_].*/, "", n)
         if (n ~ /^_Z[0-9]/) { sub(/^_Z[0-9]+/, "", n); sub(/[^a-z_].*/, "", n) } }
       /bytes spill stores/ { spill = $5 }
       /Used [0-9]+ registers/ { for (i = 1; i < NF; i++) if ($i == "Used") regs = $(i + 1)
         if (!skip) printf "%s: %s regs, %s B spilled; ", n, regs, spill }' "$1" | cut -c1-400
}
for b in layernorm_stripped layernorm_traced hopper_stripped hopper_traced \
  hopper_stripped_flipped hopper_traced_flipped hopper_inflight_stripped hopper_inflight_traced \
  wgmma_probe slice_cost gemm_stripped gemm_traced check_ctrace; do
  if [[ -x $R/$b ]]; then
    result "build $b" ok "$(ptxas_usage "$out/logs/build_$b.txt")"
  else
    result "build $b" FAIL "see logs/build_$b.txt"
    tail -20 "$out/logs/build_$b.txt"
  fi
done
for b in layernorm_stripped layernorm_traced hopper_stripped hopper_traced slice_cost; do
  [[ -x $R/$b ]] && cuobjdump -res-usage "$R/$b" >"$out/sass/$b.res-usage.txt" 2>&1 || true
done
sass() { # sass <binary> <file> <mangled kernel>
  [[ -x $1 ]] && cuobjdump -sass -fun "$3" "$1" >"$out/sass/$2.sass" 2>&1 || true
}
sass "$R/hopper_stripped" hopper_original '_Z13ws_wgmma_gemmPK6__halfS1_Pfiii'
sass "$R/hopper_traced" hopper_twin '_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE'
sass "$R/hopper_inflight_traced" hopper_inflight_twin \
  '_Z28ws_wgmma_gemm_cutrace_tracedPK6__halfS1_PfiiiPN7cutrace5SlotsE'
sass "$R/layernorm_stripped" layernorm_original '_Z14layernorm_rowsPK6float4S1_S1_PS_i'
sass "$R/layernorm_traced" layernorm_twin \
  '_Z29layernorm_rows_cutrace_tracedPK6float4S1_S1_PS_iPN7cutrace5SlotsE'
sass "$R/slice_cost" slice_per_cta_fma8 '_Z22per_cta_cutrace_tracedILi8EEvPfifPN7cutrace5SlotsE'
sass "$R/slice_cost" slice_per_warp_fma8 '_Z23per_warp_cutrace_tracedILi8EEvPfifPN7cutrace5SlotsE'
if [[ ${ISSUE14_BUILD_ONLY:-0} == 1 ]]; then
  echo "issue14: builds only (ISSUE14_BUILD_ONLY=1), $failures failure(s)"
  ((failures == 0))
  exit
fi

step "wgmma descriptor probe"
if [[ -x $R/wgmma_probe ]]; then
  rc=0
  run_logged wgmma_probe "$R/wgmma_probe" || rc=$?
  cat "$out/logs/wgmma_probe.txt"
  result "wgmma probe" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
    "$(grep -E 'MATCH$|is (RIGHT|WRONG)' "$out/logs/wgmma_probe.txt" |
      sed 's/^wgmma_probe: //; s/  */ /g' | paste -sd';')"
  # The other reading matched: run the GEMM built with it (and flip pipeline_tiles.h).
  if grep -q 'matching HOPPER_LEADING_IS_K=0' "$out/logs/wgmma_probe.txt"; then
    for b in hopper_stripped hopper_traced; do
      [[ -x $R/${b}_flipped ]] && mv "$R/${b}_flipped" "$R/$b"
    done
    result "GEMM descriptor reading" FAIL \
      "HOPPER_LEADING_IS_K=0 matched: the runs below use it; set kLeadingIsK false"
  else
    result "GEMM descriptor reading" ok \
      "$(grep -o 'matching HOPPER_LEADING_IS_K=.*' "$out/logs/wgmma_probe.txt")"
  fi
fi

# check <step> <log> <binary> [args...]: a program's own result check (exit status and PASS line).
check() {
  local name=$1 log=$2 bin=$3
  shift 3
  [[ -x $bin ]] || { result "$name" FAIL "not built"; return; }
  local rc=0
  run_logged "$log" env CUTRACE_OUTPUT="$R/out_$log" timeout 300 "$bin" "$@" || rc=$?
  result "$name" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
    "exit $rc; $(grep -E 'PASS|FAIL' "$out/logs/$log.txt" | tail -1)"
}
# fixture <name> <expect args...> -- <binary> <args...>: runs the traced program in automatic
# mode into fixtures/<name>/ (single-launch files too) and checks every .ctrace it wrote.
fixture() {
  local name=$1
  shift
  local expects=()
  while [[ $1 != -- ]]; do
    expects+=("$1")
    shift
  done
  shift
  local dir=$out/fixtures/$name rc=0
  [[ -x $1 ]] || { result "fixture $name" FAIL "not built"; return; }
  CUTRACE_OUTPUT="$dir" CUTRACE_PER_LAUNCH=1 CUTRACE_RAW=1 CUTRACE_FORMAT=html,json,perfetto \
    run_logged "fixture_$name" timeout 120 "$@" || rc=$?
  result "fixture $name run" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
    "exit $rc; $(grep -E 'PASS|FAIL' "$out/logs/fixture_$name.txt" | tail -1)"
  local t crc=0
  for t in "$dir"/*.ctrace; do
    [[ -e $t ]] || { result "fixture $name check" FAIL "no .ctrace written"; return; }
    local e=()
    # The expectations are for the single-launch file (<kernel>.ctrace), not the run file
    # (<program>.<pid>.ctrace).
    [[ $(basename "$t") == *.*.ctrace ]] || e=("${expects[@]}")
    "$R/check_ctrace" "${e[@]}" "$t" >>"$out/logs/check_$name.txt" 2>&1 || crc=$?
  done
  result "fixture $name check" "$([[ $crc == 0 ]] && echo ok || echo FAIL)" \
    "$(du -sh "$dir" | cut -f1) in $(ls "$dir" | wc -l) files; check_ctrace exit $crc"
}

step "layernorm: results and fixture"
check "layernorm full, stripped" layernorm_check_stripped "$R/layernorm_stripped"
check "layernorm full, traced (automatic mode)" layernorm_check_traced "$R/layernorm_traced"
# 2 CTAs x 32 warps, 8 rows each: per row a load/reduce/normalize/store range; every 8th row
# (warps 0, 8, 16, ... of the 64) also a "row" range and a "sample" instant.
fixture layernorm --expect load=512 --expect reduce=512 --expect normalize=512 \
  --expect store=512 --expect row=64 --expect sample=64 -- \
  "$R/layernorm_traced" --rows 512 --ctas 2

step "hopper_pipeline: results and fixture"
check "hopper_pipeline 4096^3, stripped" hopper_check_stripped "$R/hopper_stripped"
check "hopper_pipeline 4096^3, traced (automatic mode)" hopper_check_traced "$R/hopper_traced"
check "hopper_pipeline 4096^3, MMA in flight, stripped" hopper_inflight_check_stripped \
  "$R/hopper_inflight_stripped"
check "hopper_pipeline 4096^3, MMA in flight, traced" hopper_inflight_check_traced \
  "$R/hopper_inflight_traced"
# 256x256x512 on 2 CTAs: 8 tiles, 4 per CTA (2 per consumer), 8 k-tiles each: 32 stages a CTA.
fixture hopper_pipeline --expect load=64 --expect compute=64 --expect wait=64 \
  --expect wait_empty=56 --expect epilogue=8 --expect-flows 64 -- \
  "$R/hopper_traced" --m 256 --n 256 --k 512 --ctas 2

step "timings, traced against stripped"
rounds=${ISSUE14_ROUNDS:-3}
for round in $(seq 1 "$rounds"); do
  for job in "layernorm_stripped 200" "layernorm_traced 200" "hopper_stripped 30" \
    "hopper_traced 30" "hopper_inflight_stripped 30" "hopper_inflight_traced 30"; do
    set -- $job
    if ! in_budget; then
      result "time $1 round $round" skipped "past ISSUE14_BUDGET_S"
      continue
    fi
    [[ -x $R/$1 ]] || continue
    rc=0
    run_logged "time_${1}_$round" env CUTRACE_OUTPUT="$R/timing_out" CUTRACE_FORMAT=json \
      timeout 300 "$R/$1" --repeat "$2" || rc=$?
    result "time $1 round $round" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
      "$(grep -h 'time build=' "$out/logs/time_${1}_$round.txt" | sed 's/^[a-z_]*: time //')"
  done
  if in_budget && [[ -x $R/gemm_stripped && -x $R/gemm_traced ]]; then
    (cd "$R" && ./gemm_stripped 41 && ./gemm_traced 41) >>"$out/logs/gemm.csv" 2>&1 ||
      result "sgemm round $round" FAIL "see logs/gemm.csv"
  fi
done
if [[ -f $R/sgemm.ctrace ]]; then
  # 4096 CTAs x 256 k-tiles: every load and math range of the last recorded launch.
  rc=0
  run_logged check_sgemm "$R/check_ctrace" --expect load=1048576 --expect math=1048576 \
    "$R/sgemm.ctrace" || rc=$?
  result "sgemm traced buffer" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
    "$(ls -l "$R/sgemm.ctrace" | awk '{print $5}') bytes; check_ctrace exit $rc"
  rm -f "$R/sgemm.ctrace"
fi

step "per-event cost: per-warp against per-CTA rows"
if in_budget && [[ -x $R/slice_cost ]]; then
  rc=0
  run_logged slice_cost "$R/slice_cost" || rc=$?
  result "slice_cost" "$([[ $rc == 0 ]] && echo ok || echo FAIL)" \
    "exit $rc; $(grep -c '^slice_cost,' "$out/logs/slice_cost.txt") lines"
fi

step "summary"
python3 - "$tsv" "$out/logs" >"$out/summary.md" <<'PY'
import csv, os, re, statistics, sys
tsv, logs = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(tsv), delimiter="\t"))
def log(name):
    p = os.path.join(logs, name)
    return open(p).read() if os.path.exists(p) else ""
def med(v):
    return statistics.median(v) if v else None
def f(v, d=4):
    return "-" if v is None else f"{v:.{d}f}"
print("# Issue 14 on the H200\n")
print("GPU: " + " | ".join(log("gpu.txt").splitlines()[1:]) + "\n")
print("## Builds, checks, fixtures\n")
print("| step | status | detail |\n|---|---|---|")
for r in rows:
    if not r["step"].startswith("time "):
        print(f"| {r['step']} | {r['status']} | {r['detail'].replace('|', '/')} |")

print("\n## Traced against stripped (kernel alone, median ms; the traced build times its original"
      " kernel and its twin interleaved in one process)\n")
print("| example | stripped build | traced build, recording off (the original kernel) | traced "
      "build, recording on (the twin) | on / off | on / stripped | rounds |\n"
      "|---|---|---|---|---|---|---|")
for ex in ("layernorm", "hopper", "hopper_inflight"):
    s, o, t = [], [], []
    for r in rows:
        m = dict(re.findall(r"(\w+)=([\d.]+)", r["detail"]))
        if r["step"].startswith(f"time {ex}_stripped") and "original_ms" in m:
            s.append(float(m["original_ms"]))
        if r["step"].startswith(f"time {ex}_traced") and "twin_ms" in m:
            o.append(float(m["original_ms"]))
            t.append(float(m["twin_ms"]))
    ratios = [b / a for a, b in zip(o, t)]
    ms_, mo, mt = med(s), med(o), med(t)
    print(f"| {ex} | {f(ms_)} | {f(mo)} | {f(mt)} | {f(med(ratios), 3)} | "
          f"{f(mt / ms_ if mt and ms_ else None, 3)} | {len(t)} |")

gemm = [l.split(",") for l in log("gemm.csv").splitlines() if l.startswith("gemm,")]
if gemm:
    print("\n## SGEMM 4096^3, 1024 events per CTA (bench/gpu/gemm_overhead.cu; median of 41, "
          "median over rounds)\n")
    print("| kernel | stripped ms | traced ms | overhead | checks |\n|---|---|---|---|---|")
    for mb in ("minblocks=0", "minblocks=5"):
        s = [float(g[5]) for g in gemm if g[1] == "stripped" and g[2] == mb]
        t = [float(g[5]) for g in gemm if g[1] == "traced" and g[2] == mb]
        ok = sorted({g[8] for g in gemm if g[2] == mb})
        ms_, mt = med(s), med(t)
        over = f"{(mt / ms_ - 1) * 100:+.1f}%" if ms_ and mt else "-"
        print(f"| `__launch_bounds__(256{'' if mb.endswith('0') else ', 5'})` | {f(ms_)} | "
              f"{f(mt)} | {over} | {' '.join(ok)} |")

sc = [l.split(",") for l in log("slice_cost.txt").splitlines() if l.startswith("slice_cost,")
      and not l.startswith("slice_cost,device")]
if sc:
    print("\n## Per-event cost, per-warp against per-CTA rows (bench/gpu/slice_cost.cu, one run; "
          "ns/event = (variant - stripped) / events per row)\n")
    t = {(v, int(fm), int(c)): float(ms) for _, v, fm, c, ev, ms in sc}
    events = int(sc[0][4])
    variants = ["per_cta", "per_warpgroup", "per_warp", "per_warp_if", "per_warp_off"]
    print("| FMAs | CTAs/SM | stripped ms | " + " | ".join(f"{v} ns/ev" for v in variants) +
          " | per_warp / per_cta |\n|" + "---|" * (4 + len(variants)))
    for (v, fm, c) in sorted(k for k in t if k[0] == "stripped"):
        base = t[(v, fm, c)]
        cost = {x: (t[(x, fm, c)] - base) * 1e6 / events for x in variants if (x, fm, c) in t}
        ratio = (f"{cost['per_warp'] / cost['per_cta']:.2f}"
                 if cost.get("per_cta", 0) > 0.5 else "n/a (per-CTA cost < 0.5 ns)")
        print(f"| {fm} | {c} | {base:.4f} | " + " | ".join(f"{cost.get(x, float('nan')):.2f}"
              for x in variants) + f" | {ratio} |")
    rows_lines = [l for l in log("slice_cost.txt").splitlines() if l.startswith("slice_rows,")]
    if rows_lines:
        print("\nRows decoded (8 FMAs, 1 CTA/SM): " + "; ".join(
            "{}: {} rows, {} records, {}".format(*l.split(",")[1:5]) for l in rows_lines))
bad = [r for r in rows if r["status"] == "FAIL"]
print(f"\n{len(bad)} failed step(s)" + (": " + ", ".join(r["step"] for r in bad) if bad else ""))
PY
cat "$out/summary.md"
echo "issue14: $(elapsed) s, $failures failure(s); everything under $out"
((failures == 0))
