#!/usr/bin/env bash
# The HTML viewer in a real browser (Debian chromium, headless, offline):
#   1. a demo trace: for CTA 0, CTA 3 and the grid, the page's own count of the slices and
#      instants it laid out on the first paint equals the decoder's count (trace-view --summary
#      --cta N), no script error, the incomplete slice and dropped counts show;
#   2. names full of HTML and </script> stay text: no injected element, no error;
#   3. a synthetic trace of 1,048,576 events (64 CTAs x 2 groups, and one row holding all of
#      them): the page paints, counts still match, and first paint time is printed;
#   4. a real H200 dump (test/data/h200/ws_gemm.ctrace): for CTA 0 and CTA 7 the page draws as
#      many slices and arrows as the decoder has for that CTA (33 slices, 16 flows);
#   5. a whole run (gen_run: 300 launches of 3 kernels on 2 GPUs, export_run_html), then the H200
#      run test/data/h200/runs/loop_1000_default.ctrace: the overview paints every launch within
#      the first-paint budget; #launch=I opens launch I, whose grid draws as many CTAs, and whose
#      CTA 1 as many slices and instants, as the decoder has; with a 1 MB bound, detail is left
#      out and the page says so; the H200 run as 64 ranks on 8 hosts (make_rank_files): the
#      header folds the processes by host and states the bound between the hosts' clocks.
#   6. (CHECKS=slices, not in the default set) 264 CTAs of 1024 threads with a row per warp
#      (TRACE_GROUPS("warp", 32): 33 rows per CTA, gen_trace warps): the grid shows one band per
#      group until the warp group is expanded (#grid&expand=1, what its button and a click in the
#      gutter by its band do), then every drawn CTA draws all 33 rows in bands of their own, and
#      the page paints within MAX_FIRST_PAINT_MS; a CTA's page lays out the decoder's counts.
#      The same for the H200 fixture test/data/h200/issue14/layernorm_rows.ctrace (2 CTAs x 32
#      warp rows).
#   7. (CHECKS=filter) the filter box (#...&q=QUERY, &hide=1): on the demo trace and the H200
#      ws_gemm dump, the page's matching slices (drawn, and counted in the view's scope) equal the
#      count of the decoded slices (trace-view --json) that satisfy the same query.
#   8. (CHECKS=select) a range selection (#...&sel=B-E, what Shift+drag sets): per name, the
#      page's count, clipped and full totals and instants equal trace-view analyze --window B:E
#      [--cta N] --json, in a CTA (cycles) and in the grid (ns), demo trace and H200 ws_gemm.
#   9. (CHECKS=picker) 10 000 CTAs (gen_trace ctas): the CTA picker (#pick=5000, what typing
#      5000 and Enter does, and #pick=0,50,0 as x,y,z) opens CTA 5000 with the decoder's slice and
#      instant counts, the page has no element per CTA, and an index past the grid is refused.
# Usage: test/browser/check.sh [BUILD_DIR] [WORK_DIR]
#   CHECKS selects sections (default "demo evil bulk fixture run"), e.g. CHECKS=fixture.
#   BUILD_DIR holds bin/trace-view and runtime/libcutrace_{analysis,format}.a (default: build)
#   TRACE_VIEW, GEN_TRACE, GEN_RUN override the binaries (the generators are compiled here when
#   not given); MAX_FIRST_PAINT_MS (default: none, the figure is printed) bounds the run
#   overview's first paint, MAX_BULK_FIRST_PAINT_MS (default none) the 1M-event pages' (grid and
#   CTA 0: the first render,
#   or when it is over, the median of it and two more renders; firstPaintMs is
#   from navigation start to the rendered frame that shows the first paint: docs/viewer.md,
#   "Large traces").
# Exit: 0 pass, 1 fail, 77 skipped (no chromium).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/chromium.sh"
build=$(realpath -m "${1:-$root/build}")
work=$(realpath -m "${2:-$build/browser-check}")
if [[ -z "$CHROMIUM" ]]; then
  echo "SKIP: chromium not found (apt-get install chromium)"
  exit 77
fi
mkdir -p "$work"
trace_view=${TRACE_VIEW:-$build/bin/trace-view}
[[ -x "$trace_view" ]] || { echo "FAIL: no trace-view at $trace_view"; exit 1; }
checks=" ${CHECKS:-demo evil bulk fixture run} "
want() { [[ "$checks" == *" $1 "* ]]; }
max_ms=${MAX_FIRST_PAINT_MS:-}
# paint_ok MS MAX: the page painted (MS > 0) and, when a budget MAX is given, within it. The suite
# gives none (it reports the figures, so a busy machine cannot fail it); bench/viewer/first_paint.sh
# asserts the 2 s budgets.
paint_ok() { awk -v ms="$1" -v max="$2" 'BEGIN { exit !(ms > 0 && (max == "" || ms <= max)) }'; }
# generator NAME: $work/NAME compiled from $here/NAME.cpp against the build's libraries.
generator() {
  local bin=$work/$1
  if [[ ! -x "$bin" || "$here/$1.cpp" -nt "$bin" || "$build/runtime/libcutrace_analysis.a" -nt "$bin" ]]; then
    ${CXX:-c++} -std=c++17 -O2 -I"$root/runtime/include" "$here/$1.cpp" \
      "$build/runtime/libcutrace_analysis.a" "$build/runtime/libcutrace_format.a" -o "$bin" ||
      { echo "FAIL: cannot build $1" >&2; return 1; }
  fi
  echo "$bin"
}
gen=${GEN_TRACE:-}
if [[ -z "$gen" ]] && { want demo || want evil || want bulk || want slices || want filter ||
                        want select || want picker; }; then
  gen=$(generator gen_trace) || exit 1
fi

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# field JSON KEY: a scalar from the flat stats object.
field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2- | tr -d '"'; }
# decoder_count CTRACE CTA WHAT: the "slices"/"instants" line of trace-view's summary.
decoder_count() {
  "$trace_view" "$1" --summary --cta "$2" 2>/dev/null | awk -v w="$3" '$1 == w && NF == 2 {print $2}'
}

# render HTML VIEW NAME: dumps the DOM after the first paint; sets STATS, DOM, LOG.
render() {
  DOM=$work/$3.dom.html LOG=$work/$3.log
  # Chromium can dump the DOM after the first paint was drawn but before the task queued from that
  # frame ran (firstDrawnMs set, firstPaintMs still null): the paint time was not taken, so the
  # page is rendered again (twice at most) rather than judged without it.
  local attempt
  for attempt in 1 2 3; do
    headless --window-size=1400,800 --virtual-time-budget=10000 --dump-dom "file://$1#$2" \
      >"$DOM" 2>"$LOG"
    STATS=$(sed -n 's/.*<pre id="cutrace-stats"[^>]*>\([^<]*\)<\/pre>.*/\1/p' "$DOM" | sed 's/&quot;/"/g')
    [[ "$(field "$STATS" firstDrawnMs)" != null && "$(field "$STATS" firstPaintMs)" == null ]] ||
      break
  done
  if [[ -z "$STATS" ]]; then
    fail "$3: no stats in the dumped DOM (chromium log: $LOG)"
    return 1
  fi
  if grep -q "Uncaught" "$LOG"; then
    fail "$3: console error: $(grep -m1 Uncaught "$LOG")"
  fi
  if [[ "$(field "$STATS" errors)" != "[]" ]]; then
    fail "$3: page errors: $(grep -o '"errors":\[[^]]*\]' <<<"$STATS")"
  fi
  return 0
}

# check_counts CTRACE HTML CTA NAME [exact]: page counts vs decoder counts for one CTA.
check_counts() {
  render "$2" "cta=$3" "$4" || return
  local want_s want_i got_s got_i drawn
  want_s=$(decoder_count "$1" "$3" slices)
  want_i=$(decoder_count "$1" "$3" instants)
  got_s=$(field "$STATS" slicesVisible)
  got_i=$(field "$STATS" instantsVisible)
  drawn=$(field "$STATS" slicesDrawn)
  [[ "$(field "$STATS" view)" == cta && "$(field "$STATS" cta)" == "$3" ]] ||
    fail "$4: #cta=$3 did not select CTA $3: $STATS"
  [[ -n "$want_s" && "$got_s" == "$want_s" ]] ||
    fail "$4: page laid out $got_s slices, decoder has ${want_s:-?}"
  [[ -n "$want_i" && "$got_i" == "$want_i" ]] ||
    fail "$4: page laid out $got_i instants, decoder has ${want_i:-?}"
  if [[ "${5:-}" == exact ]]; then
    [[ "$drawn" == "$got_s" ]] || fail "$4: drew $drawn rectangles for $got_s wide slices"
  else
    [[ "$drawn" -le "$got_s" ]] || fail "$4: drew $drawn rectangles for $got_s slices"
  fi
  pass "$4: CTA $3 slices $got_s (drawn $drawn) instants $got_i, first paint $(field "$STATS" firstPaintMs) ms"
}

# 1. Demo trace.
if want demo; then
"$gen" demo "$work/demo.ctrace" && "$trace_view" "$work/demo.ctrace" --html "$work/demo.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the demo trace"; exit 1; }
check_counts "$work/demo.ctrace" "$work/demo.html" 0 demo_cta0 exact
check_counts "$work/demo.ctrace" "$work/demo.html" 3 demo_cta3 exact
if render "$work/demo.html" grid demo_grid; then
  [[ "$(field "$STATS" view)" == grid && "$(field "$STATS" slicesDrawn)" -gt 0 ]] &&
    pass "demo grid: $(field "$STATS" slicesDrawn) slices drawn" || fail "demo grid: $STATS"
  grep -q 'dropped <b>46</b>' "$DOM" || fail "demo: the 46 dropped events are not shown"
  grep -q 'incomplete <b>1</b>' "$DOM" || fail "demo: the incomplete slice is not counted"
fi
fi

# 2. Hostile names.
if want evil; then
"$gen" demo "$work/evil.ctrace" --evil && "$trace_view" "$work/evil.ctrace" --html "$work/evil.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the hostile trace"; exit 1; }
if render "$work/evil.html" cta=0 evil; then
  scripts=$(grep -o '<script' "$DOM" | wc -l)
  [[ "$scripts" == 2 ]] || fail "evil: $scripts script elements in the DOM, want 2"
  ! grep -q '<img' "$DOM" || fail "evil: an <img> element was injected"
  ! grep -q '<b>epi' "$DOM" || fail "evil: a <b> element was injected"
  [[ "$(field "$STATS" slicesVisible)" == "$(decoder_count "$work/evil.ctrace" 0 slices)" ]] ||
    fail "evil: counts differ: $STATS"
  pass "evil: names stayed text"
fi
fi

# 3. A million events.
if want bulk; then
bulk_max_ms=${MAX_BULK_FIRST_PAINT_MS:-}
"$gen" bulk "$work/bulk.ctrace" --events 1048576 --ctas 64 --groups 2 &&
  "$gen" bulk "$work/one.ctrace" --events 1048576 --ctas 1 --groups 1 &&
  "$trace_view" "$work/bulk.ctrace" --html "$work/bulk.html" 2>/dev/null &&
  "$trace_view" "$work/one.ctrace" --html "$work/one.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the 1M-event traces"; exit 1; }
# within_budget MS HTML VIEW NAME: MS (the first render's first paint) is within the budget, or,
# when the machine was busy, the median of it and two more renders of VIEW is. Prints the figure.
within_budget() {
  local all=("$1") i
  if paint_ok "$1" "$bulk_max_ms"; then
    echo "$1"
    return 0
  fi
  for i in 2 3; do
    render "$2" "$3" "$4_again$i" >/dev/null && all+=("$(field "$STATS" firstPaintMs)")
  done
  local median
  median=$(printf '%s\n' "${all[@]}" | sort -g | sed -n 2p)
  echo "${median:-${all[0]}} (median of ${all[*]})"
  paint_ok "${median:-0}" "$bulk_max_ms"
}
for t in bulk one; do
  check_counts "$work/$t.ctrace" "$work/$t.html" 0 "${t}_1M_cta0"
  ms=$(field "$STATS" firstPaintMs)
  got=$(within_budget "$ms" "$work/$t.html" cta=0 "${t}_1M_cta0") ||
    fail "$t CTA 0: first paint ${got} ms exceeds ${bulk_max_ms} ms"
  if render "$work/$t.html" grid "${t}_1M_grid"; then
    ms=$(field "$STATS" firstPaintMs)
    echo "1M events ($t, $(du -k "$work/$t.html" | cut -f1) KiB HTML): grid first paint ${ms} ms" \
      "(script from $(field "$STATS" scriptMs) ms, load $(field "$STATS" loadMs) ms," \
      "drawn at $(field "$STATS" firstDrawnMs) ms, paint $(field "$STATS" paintMs) ms," \
      "$(field "$STATS" slicesDrawn) rectangles for $(field "$STATS" slicesVisible) slices)"
    got=$(within_budget "$ms" "$work/$t.html" grid "${t}_1M_grid") ||
      fail "$t: first paint ${got} ms exceeds ${bulk_max_ms} ms"
  fi
done
fi

# 4. A real trace recorded on an H200: every slice and every flow arrow of the CTA is drawn.
if want fixture; then
ws=$root/test/data/h200/ws_gemm.ctrace
"$trace_view" "$ws" --html "$work/ws_gemm.html" 2>/dev/null ||
  { echo "FAIL: trace-view cannot render $ws"; exit 1; }
for cta in 0 7; do
  check_counts "$ws" "$work/ws_gemm.html" "$cta" "h200_ws_gemm_cta$cta"
  want_s=$(decoder_count "$ws" "$cta" slices)
  want_f=$("$trace_view" "$ws" --summary --cta "$cta" 2>/dev/null | awk '$1 == "flows" && $2 == "drawn" {print $3}')
  got_d=$(field "$STATS" slicesDrawn)
  got_f=$(field "$STATS" flowsDrawn)
  [[ -n "$want_s" && "$got_d" == "$want_s" ]] ||
    fail "h200 ws_gemm CTA $cta: drew $got_d slices, decoder has ${want_s:-?}"
  [[ -n "$want_f" && "$got_f" == "$want_f" ]] ||
    fail "h200 ws_gemm CTA $cta: drew $got_f flow arrows, decoder has ${want_f:-?}"
  pass "h200 ws_gemm CTA $cta: slicesDrawn $got_d = decoder $want_s, flowsDrawn $got_f = decoder $want_f"
done
fi

# 5. A whole run: the overview, then one launch opened from it, then a run past its size bound.
if want run; then
gen_run=${GEN_RUN:-$(generator gen_run)} || exit 1
"$gen_run" "$work/run" >"$work/run.expect" && "$gen_run" "$work/run_bound" --max-mb 1 >"$work/run_bound.expect" ||
  { echo "FAIL: cannot produce the run"; exit 1; }
# expect FILE KEY: a "KEY value" line; expect FILE launch I FIELD: a field of launch I's line.
expect() {
  if [[ $# == 2 ]]; then awk -v k="$2" '$1 == k {print $2}' "$1"; return; fi
  awk -v i="$3" -v f="$4" '$1 == "launch" && $2 == i { for (n = 3; n < NF; n += 2) if ($n == f) print $(n + 1) }' "$1"
}
# check_run NAME: the overview of $work/NAME.html draws every launch, within the budget.
check_run() {
  local e=$work/$1.expect ms
  launches=$(expect "$e" launches)
  render "$work/$1.html" run "$1_overview" || return
  ms=$(field "$STATS" firstPaintMs)
  [[ "$(field "$STATS" view)" == run && "$(field "$STATS" launches)" == "$launches" &&
     "$(field "$STATS" launchesVisible)" == "$launches" ]] ||
    fail "$1 overview: $launches launches, page: $STATS"
  [[ "$(field "$STATS" launchesWithDetail)" == "$(expect "$e" detail)" ]] ||
    fail "$1 overview: detail count differs: $STATS"
  paint_ok "$ms" "$max_ms" ||
    fail "$1 overview: first paint ${ms} ms exceeds ${max_ms} ms"
  echo "$1 overview ($launches launches, $(( $(expect "$e" html_bytes) / 1024 )) KiB HTML):" \
    "first paint ${ms} ms (load $(field "$STATS" loadMs) ms, paint $(field "$STATS" paintMs) ms," \
    "$(field "$STATS" launchesDrawn) spans drawn)"
}
# check_run_launch NAME I [all]: #launch=I shows launch I: it lays out as many CTAs and slices as
# the decoder has (with `all`, every SM row fits the window and the grid draws every CTA), and
# its CTA 1 draws as many slices and instants.
check_run_launch() {
  local e=$work/$1.expect i=$2 ctas drawn want_s want_i
  ctas=$(expect "$e" launch "$i" ctas)
  if render "$work/$1.html" "launch=$i&grid" "$1_launch${i}_grid"; then
    drawn=$(field "$STATS" ctasDrawn)
    [[ "$(field "$STATS" view)" == grid && "$(field "$STATS" launch)" == "$i" &&
       "$(field "$STATS" launchCtas)" == "$ctas" && "$drawn" -gt 0 && "$drawn" -le "$ctas" &&
       ( "${3:-}" != all || "$drawn" == "$ctas" ) &&
       "$(field "$STATS" totalSlices)" == "$(expect "$e" launch "$i" slices)" ]] &&
      pass "$1 launch $i: $ctas CTAs laid out, $drawn drawn on screen (opened in $(field "$STATS" launchLoadMs) ms)" ||
      fail "$1 launch $i: decoder has $ctas CTAs, $(expect "$e" launch "$i" slices) slices; page: $STATS"
  fi
  want_s=$(expect "$e" launch "$i" cta1_slices)
  want_i=$(expect "$e" launch "$i" cta1_instants)
  if render "$work/$1.html" "launch=$i&cta=1" "$1_launch${i}_cta1"; then
    [[ "$(field "$STATS" view)" == cta && "$(field "$STATS" cta)" == 1 &&
       "$(field "$STATS" slicesVisible)" == "$want_s" && "$(field "$STATS" slicesDrawn)" == "$want_s" &&
       "$(field "$STATS" instantsVisible)" == "$want_i" ]] &&
      pass "$1 launch $i CTA 1: $want_s slices, $want_i instants" ||
      fail "$1 launch $i CTA 1: decoder has $want_s slices, $want_i instants; page: $STATS"
  fi
}
check_run run
for i in 0 5 $((launches - 1)); do check_run_launch run "$i" all; done
# A launch opened from the run keeps the picker and the filter: #pick=1 opens its CTA 1, and the
# query (cta:1, hidden otherwise) keeps every one of its slices.
want_s=$(expect "$work/run.expect" launch 5 cta1_slices)
if render "$work/run.html" "launch=5&pick=1&q=cta%3A1&hide=1" run_launch5_pick_filter; then
  [[ "$(field "$STATS" launch)" == 5 && "$(field "$STATS" cta)" == 1 && -n "$want_s" &&
     "$(field "$STATS" matchSlices)" == "$want_s" && "$(field "$STATS" slicesDrawn)" == "$want_s" ]] &&
    pass "run launch 5: #pick=1 opened CTA 1, the filter cta:1 keeps its $want_s slices" ||
    fail "run launch 5: #pick=1&q=cta:1 want CTA 1 with $want_s matching slices drawn: $STATS"
fi
# A run recorded on an H200 (a loop of three kernels, the default launch selection).
h200_run=$root/test/data/h200/runs/loop_1000_default.ctrace
if [[ -f "$h200_run" ]]; then
  "$gen_run" "$work/h200_loop" --from "$h200_run" >"$work/h200_loop.expect" ||
    fail "cannot render $h200_run"
  check_run h200_loop
  check_run_launch h200_loop 0
fi
# The same run as 64 ranks on 8 hosts (test/support/make_rank_files.cpp): the header folds the
# processes by host, each fold named by its ranks, and states the bound between the hosts' clocks.
if [[ -f "$h200_run" ]]; then
  rm -rf "$work/ranks" && mkdir -p "$work/ranks"
  if ${CXX:-c++} -std=c++17 -O2 -I"$root/runtime/include" "$root/test/support/make_rank_files.cpp" \
       "$build/runtime/libcutrace_format.a" -o "$work/make_rank_files" &&
     "$work/make_rank_files" "$h200_run" "$work/ranks" --ranks 64 --per-host 8 \
       --host-offset-ns 2000000 --host-clock-error-ns 250000 &&
     "$trace_view" "$work"/ranks/*.ctrace --html "$work/ranks.html" --html-max-mb 1 2>/dev/null; then
    if render "$work/ranks.html" run ranks_overview; then
      folds=$(grep -o '<details class="host"><summary>node0[0-7]: ranks [0-9]*-[0-9]*</summary>' "$DOM" | wc -l)
      [[ "$folds" == 8 && "$(field "$STATS" launches)" == 1536 ]] &&
        grep -q '<summary>node07: ranks 56-63</summary><span>rank <b>56</b></span><span>local rank <b>0</b>' "$DOM" &&
        grep -q 'host clocks <b>processes of different hosts within 500.000 µs</b>' "$DOM" &&
        pass "64 ranks on 8 hosts: 1536 launches, 8 host folds (node07: ranks 56-63), host clock bound 500 µs stated" ||
        fail "64 ranks on 8 hosts: $folds host folds, page: $STATS (DOM: $DOM)"
    fi
  else
    fail "cannot make or render 64 ranks of $h200_run"
  fi
fi
left=$(expect "$work/run_bound.expect" left_out)
bytes=$(stat -c %s "$work/run_bound.html")
[[ "$left" -gt 0 && "$bytes" -le 1048576 ]] || fail "run with a 1 MB bound: $bytes bytes, $left left out"
gone=$(awk '$1 == "launch" && $NF == 0 {print $2; exit}' "$work/run_bound.expect")
if [[ -n "$gone" ]] && render "$work/run_bound.html" "launch=$gone" run_bound; then
  [[ "$(field "$STATS" view)" == run && "$(field "$STATS" launchesLeftOut)" == "$left" ]] ||
    fail "run with a 1 MB bound: page: $STATS"
  grep -q "detail left out: HTML size bound (1.0 MB)" "$DOM" &&
    grep -q "detail left out <b>$left (HTML size bound 1.0 MB)</b>" "$DOM" &&
    pass "run with a 1 MB bound ($bytes bytes): $left launches without detail, stated" ||
    fail "run with a 1 MB bound: the page does not say what it left out (DOM: $DOM)"
fi
fi

# 6. A row per warp of 1024-thread CTAs: collapsed by default, every row drawn once expanded.
if want slices; then
"$gen" warps "$work/warps.ctrace" --ctas 264 &&
  "$trace_view" "$work/warps.ctrace" --html "$work/warps.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the per-warp trace"; exit 1; }
rows=33 # a per-CTA row and 32 warp rows
if render "$work/warps.html" grid warps_grid_collapsed; then
  ctas=$(field "$STATS" ctasDrawn)
  [[ "$(field "$STATS" gridBands)" == 2 && "$ctas" -gt 0 &&
     "$(field "$STATS" gridBandsDrawn)" == $((2 * ctas)) &&
     "$(field "$STATS" gridRowsDrawn)" == $((rows * ctas)) ]] &&
    grep -q 'warp ×32 ▸' "$DOM" &&
    pass "warps grid collapsed: $ctas CTAs drawn, 2 bands each holding all $rows rows" ||
    fail "warps grid collapsed: want 2 bands per CTA for $rows rows, a 'warp ×32 ▸' button: $STATS"
fi
if render "$work/warps.html" "grid&expand=1" warps_grid_expanded; then
  ctas=$(field "$STATS" ctasDrawn)
  ms=$(field "$STATS" firstPaintMs)
  [[ "$(field "$STATS" gridBands)" == $rows && "$ctas" -gt 0 &&
     "$(field "$STATS" gridRowsDrawn)" == $((rows * ctas)) &&
     "$(field "$STATS" gridBandsDrawn)" == $((rows * ctas)) ]] &&
    grep -q 'warp ×32 ▾' "$DOM" &&
    pass "warps grid expanded: $ctas CTAs drawn with all $rows rows each, first paint $ms ms" ||
    fail "warps grid expanded: want $rows bands and rows per drawn CTA: $STATS"
  paint_ok "$ms" "$max_ms" ||
    fail "warps grid expanded: first paint ${ms} ms exceeds ${max_ms} ms"
fi
# The H200 layernorm fixture (2 CTAs of 1024 threads, TRACE_GROUPS("warp", 32) as group 0):
# one band per CTA, then every one of the 32 rows of both CTAs when expanded.
ln=$root/test/data/h200/issue14/layernorm_rows.ctrace
if [[ -f "$ln" ]]; then
  "$trace_view" "$ln" --html "$work/layernorm.html" 2>/dev/null || fail "cannot render $ln"
  if render "$work/layernorm.html" grid layernorm_grid_collapsed; then
    [[ "$(field "$STATS" gridBands)" == 1 && "$(field "$STATS" ctasDrawn)" == 2 &&
       "$(field "$STATS" gridRowsDrawn)" == 64 ]] &&
      pass "h200 layernorm grid collapsed: 2 CTAs, one band each holding 32 rows" ||
      fail "h200 layernorm grid collapsed: $STATS"
  fi
  if render "$work/layernorm.html" "grid&expand=0" layernorm_grid_expanded; then
    ms=$(field "$STATS" firstPaintMs)
    [[ "$(field "$STATS" gridBands)" == 32 && "$(field "$STATS" ctasDrawn)" == 2 &&
       "$(field "$STATS" gridRowsDrawn)" == 64 && "$(field "$STATS" gridBandsDrawn)" == 64 ]] &&
      paint_ok "$ms" "$max_ms" &&
      pass "h200 layernorm grid expanded: 32 rows of both CTAs in their own bands, first paint $ms ms" ||
      fail "h200 layernorm grid expanded: want 32 bands, 64 rows drawn within $max_ms ms: $STATS"
  fi
fi
# A CTA's 33 rows are taller than the window: its laid-out counts are compared, not the drawn.
for cta in 0 263; do
  if render "$work/warps.html" "cta=$cta" "warps_cta$cta"; then
    want_s=$(decoder_count "$work/warps.ctrace" "$cta" slices)
    want_i=$(decoder_count "$work/warps.ctrace" "$cta" instants)
    [[ "$(field "$STATS" cta)" == "$cta" && -n "$want_s" &&
       "$(field "$STATS" ctaSlices)" == "$want_s" && "$(field "$STATS" ctaInstants)" == "$want_i" &&
       "$(field "$STATS" slicesDrawn)" == "$(field "$STATS" slicesVisible)" ]] &&
      pass "warps CTA $cta: $want_s slices, $want_i instants laid out in its 33 rows" ||
      fail "warps CTA $cta: decoder has ${want_s:-?} slices, ${want_i:-?} instants: $STATS"
  fi
done
fi

# page_json PY: runs python code on the page's stats (as `stats`, a dict), from $STATS.
page_json() { STATS_JSON="$STATS" python3 -c "import json, os, html, sys
stats = json.loads(html.unescape(os.environ['STATS_JSON']))
$1"; }
# decoded_matches CTRACE QUERY [CTA]: "SLICES FLOWS": the slices of the decoded launch (trace-view
# --json) that satisfy the viewer's query syntax (docs/viewer.md, "Filter"), and the flows with a
# matching end, computed here independently of the page.
decoded_matches() {
  local args=("$1" --json -)
  [[ -n "${3:-}" ]] && args+=(--cta "$3")
  "$trace_view" "${args[@]}" 2>/dev/null | QUERY="$2" python3 -c '
import json, os, re, sys
doc, terms = json.load(sys.stdin), []
for tok in os.environ["QUERY"].split():
    m = re.match(r"^(name|lane|group|payload|cta|sm):(.*)$", tok, re.I)
    key, val = (m.group(1).lower(), m.group(2)) if m else ("name", tok)
    if key in ("payload", "cta", "sm"):
        rs = [re.match(r"^(-?\d+)(?:-(-?\d+))?$", p).groups() for p in val.split(",")]
        terms.append((key, [(int(a), int(b if b is not None else a)) for a, b in rs]))
    else:
        terms.append((key, val))
def text(val, s):
    return s.lower() == val[1:].lower() if val.startswith("=") else val.lower() in s.lower()
def ok(row, s):
    for key, val in terms:
        if key in ("payload", "cta", "sm"):
            v = {"payload": s["payload"], "cta": row["cta"], "sm": row["smid"]}[key]
            if not any(a <= v <= b for a, b in val): return False
        elif key == "group":
            if not (text(val, row["group"]) or text(val, row.get("label") or row["group"])): return False
        elif not text(val, s[key]): return False
    return True
rows = doc["rows"]
end_ok = lambda e: ok(rows[e[0]], rows[e[0]]["slices"][e[1]])
print(sum(ok(r, s) for r in rows for s in r["slices"]),
      sum(end_ok(f["src"]) or end_ok(f["dst"]) for f in doc["flows"]))'
}
# check_filter CTRACE HTML VIEW QUERY NAME [CTA]: the page's matches for QUERY against the decoder's.
# In a CTA (every slice wider than a pixel) with &hide=1 the page draws exactly the matches; in
# the grid its count of matching slices in the launch is compared.
check_filter() {
  local want q flows
  read -r want flows < <(decoded_matches "$1" "$4" "${6:-}")
  q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$4")
  render "$2" "$3&q=$q&hide=1" "$5" || return
  if [[ "$3" == cta=* ]]; then
    [[ -n "$want" && "$(page_json "print(stats['filter'])")" == "$4" &&
       "$(field "$STATS" matchSlices)" == "$want" &&
       "$(field "$STATS" slicesDrawn)" == "$want" && "$(field "$STATS" slicesVisible)" == "$want" &&
       "$(field "$STATS" matchesDrawn)" == "$want" && "$(field "$STATS" flowsDrawn)" == "$flows" ]] &&
      pass "$5: '$4' draws $want slices and $flows arrows, the decoder's matches" ||
      fail "$5: '$4': decoder has ${want:-?} matching slices, ${flows:-?} flows with a matching end; page: $STATS"
    render "$2" "$3&q=$q" "$5_dimmed" || return # dimmed, not hidden: every slice is drawn
    [[ "$(field "$STATS" matchesVisible)" == "$want" &&
       "$(field "$STATS" slicesVisible)" == "$(field "$STATS" ctaSlices)" ]] ||
      fail "$5 dimmed: want $want matches among all slices drawn: $STATS"
  else
    [[ -n "$want" && "$(field "$STATS" matchSlices)" == "$want" && "$(field "$STATS" matchesDrawn)" -gt 0 ]] &&
      pass "$5: '$4' matches $want slices in the launch, as the decoder" ||
      fail "$5: '$4': decoder has ${want:-?} matching slices in the launch; page: $STATS"
  fi
}
if want filter; then
"$gen" demo "$work/demo.ctrace" && "$trace_view" "$work/demo.ctrace" --html "$work/demo.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the demo trace"; exit 1; }
check_filter "$work/demo.ctrace" "$work/demo.html" cta=3 "name:mma payload:2-5" filter_demo_cta3 3
check_filter "$work/demo.ctrace" "$work/demo.html" cta=0 "group:consumer lane:mma" filter_demo_cta0 0
check_filter "$work/demo.ctrace" "$work/demo.html" cta=5 "tile payload:1,4" filter_demo_cta5 5
check_filter "$work/demo.ctrace" "$work/demo.html" cta=3 "wait payload:0-2" filter_demo_cta3_flows 3
check_filter "$work/demo.ctrace" "$work/demo.html" grid "name:=load sm:1-2" filter_demo_grid
check_filter "$work/demo.ctrace" "$work/demo.html" grid "cta:0-3 group:producer" filter_demo_grid_ctas
ws=$root/test/data/h200/ws_gemm.ctrace
"$trace_view" "$ws" --html "$work/ws_gemm.html" 2>/dev/null || fail "trace-view cannot render $ws"
check_filter "$ws" "$work/ws_gemm.html" cta=0 consume filter_h200_ws_gemm_cta0 0
check_filter "$ws" "$work/ws_gemm.html" cta=7 "produce payload:0-3" filter_h200_ws_gemm_cta7 7
# The decoder's own per-name count for the same CTA (its summary), not only the re-implementation.
want=$("$trace_view" "$ws" --summary --cta 0 2>/dev/null | awk '$1 == "consume" && NF > 5 {print $2; exit}')
render "$work/ws_gemm.html" "cta=0&q=name%3A%3Dconsume&hide=1" filter_h200_summary &&
  { [[ -n "$want" && "$(field "$STATS" slicesDrawn)" == "$want" ]] &&
      pass "filter_h200_summary: name:=consume draws $want slices, the summary's consume count" ||
      fail "filter_h200_summary: summary has ${want:-?} consume slices; page: $STATS"; }
render "$work/demo.html" "cta=3&q=payload%3Ax" filter_bad_query &&
  { [[ "$(field "$STATS" filterError)" == *"not a number"* && "$(field "$STATS" matchSlices)" == null ]] &&
      pass "filter_bad_query: 'payload:x' is refused and filters nothing" ||
      fail "filter_bad_query: $STATS"; }
fi

# check_window CTRACE HTML VIEW B E NAME [CTA]: the selection's statistics against the decoder's.
check_window() {
  render "$2" "$3&sel=$4-$5" "$6" || return
  window_equals_decoder "$1" "$4" "$5" "$6" "${7:-}"
}
# window_equals_decoder CTRACE B E NAME [CTA]: $STATS's selection against trace-view analyze.
window_equals_decoder() {
  local b=$2 e=$3 name=$4 cta=${5:-} unit=ns
  local args=(analyze "$1" --window "$b:$e" --json "$work/$name.window.json")
  [[ -n "$cta" ]] && args+=(--cta "$cta") && unit=cycles
  "$trace_view" "${args[@]}" >/dev/null 2>&1 || { fail "$name: trace-view ${args[*]} failed"; return; }
  local out
  if out=$(page_json "
want = json.load(open('$work/$name.window.json'))['window']
sel, u = stats['selection'], '$unit'
assert sel and sel['unit'] == u and sel['begin'] == $b and sel['end'] == $e, 'selection: %r' % sel
page = {n['name']: n for n in sel['names']}
dec = {s['name']: dict(count=s['count'], clipped=s['clipped_' + u], full=s['full_' + u], instants=0)
       for s in want['slices']}
for i in want['instants']:
    dec.setdefault(i['name'], dict(count=0, clipped=0, full=0, instants=0))['instants'] = i['count']
assert dec, 'the decoder found nothing in the window: choose another'
assert sorted(page) == sorted(dec), 'names: page %s, decoder %s' % (sorted(page), sorted(dec))
close = lambda a, b: abs(a - b) <= 1e-6 * max(1, abs(b))
for n, d in dec.items():
    p = page[n]
    assert p['count'] == d['count'] and p['instants'] == d['instants'] and close(p['clipped'], d['clipped']) \
        and close(p['full'], d['full']), '%s: page %r, decoder %r' % (n, p, d)
print('%d names, %d slices, %d instants' % (len(dec), sum(d['count'] for d in dec.values()),
                                            sum(d['instants'] for d in dec.values())))
" 2>&1); then
    pass "$name: [$b, $e] $unit: $out, as trace-view analyze --window"
  else
    fail "$name: [$b, $e] $unit: $(tail -1 <<<"$out")"
  fi
}
if want select; then
"$gen" demo "$work/demo.ctrace" && "$trace_view" "$work/demo.ctrace" --html "$work/demo.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the demo trace"; exit 1; }
check_window "$work/demo.ctrace" "$work/demo.html" cta=3 1000 2500 select_demo_cta3 3
check_window "$work/demo.ctrace" "$work/demo.html" cta=0 0 900.5 select_demo_cta0 0
check_window "$work/demo.ctrace" "$work/demo.html" grid 800 2900 select_demo_grid
ws=$root/test/data/h200/ws_gemm.ctrace
"$trace_view" "$ws" --html "$work/ws_gemm.html" 2>/dev/null || fail "trace-view cannot render $ws"
check_window "$ws" "$work/ws_gemm.html" cta=7 20000 45000 select_h200_ws_gemm_cta7 7
check_window "$ws" "$work/ws_gemm.html" grid 10000 30000 select_h200_ws_gemm_grid
# The gesture: Shift+drag over CTA 3 (mouse events dispatched by a script added to a copy of the
# page), then the range it selected, read back from the page, against the decoder.
sed 's#</body></html>#<script>(function () {\
  const cv = document.getElementById("cv"), r = cv.getBoundingClientRect();\
  const at = (type, x, target) => target.dispatchEvent(new MouseEvent(type, {clientX: r.left + x,\
    clientY: r.top + 60, shiftKey: true, bubbles: true}));\
  at("mousedown", 500, cv); at("mousemove", 650, window); at("mousemove", 800, window);\
  at("mouseup", 800, window);\
})();</script></body></html>#' "$work/demo.html" >"$work/demo_drag.html"
if render "$work/demo_drag.html" cta=3 select_shift_drag; then
  range=$(page_json "s = stats['selection']; print(s['begin'], s['end']) if s else print('none')")
  if [[ "$range" =~ ^([0-9.]+)\ ([0-9.]+)$ ]]; then
    window_equals_decoder "$work/demo.ctrace" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" select_shift_drag 3
  else
    fail "select_shift_drag: Shift+drag selected nothing: $STATS"
  fi
fi
fi

# The CTA picker on 10 000 CTAs: no element per CTA; typing an index or x,y,z opens that CTA.
if want picker; then
"$gen" ctas "$work/ctas.ctrace" --ctas 10000 &&
  "$trace_view" "$work/ctas.ctrace" --html "$work/ctas.html" 2>/dev/null ||
  { echo "FAIL: cannot produce the 10000-CTA trace"; exit 1; }
for pick in 5000 0,50,0; do
  if render "$work/ctas.html" "pick=$pick" "picker_${pick//,/_}"; then
    want_s=$(decoder_count "$work/ctas.ctrace" 5000 slices)
    want_i=$(decoder_count "$work/ctas.ctrace" 5000 instants)
    buttons=$(grep -o '<button' "$DOM" | wc -l)
    [[ "$(field "$STATS" view)" == cta && "$(field "$STATS" cta)" == 5000 && -n "$want_s" &&
       "$(field "$STATS" ctaSlices)" == "$want_s" && "$(field "$STATS" slicesVisible)" == "$want_s" &&
       "$(field "$STATS" ctaInstants)" == "$want_i" && "$buttons" -lt 20 ]] &&
      pass "picker: '$pick' opened CTA 5000: $want_s slices, $want_i instants as the decoder; $buttons buttons in the page" ||
      fail "picker: '$pick': want CTA 5000 with ${want_s:-?} slices, ${want_i:-?} instants, < 20 buttons ($buttons): $STATS"
  fi
done
if render "$work/ctas.html" "pick=10000" picker_out_of_range; then
  [[ "$(field "$STATS" view)" == grid && "$(field "$STATS" pickError)" == "no CTA 10000 in this trace" ]] &&
    pass "picker: 10000 is refused (no CTA 10000), the grid stays" ||
    fail "picker: 10000 should be refused: $STATS"
fi
fi

if [[ $failures -gt 0 ]]; then
  echo "browser check: $failures failures (work dir $work)"
  exit 1
fi
echo "browser check: all passed"
