#!/usr/bin/env bash
# The --explain=html report of real multi-kernel inputs in headless chromium: the page's script
# runs without a console error and writes its own counts into a hidden element (#explain-check),
# which must show one sidebar entry and one section per changed region and as many kernel
# sections as the decode map has kernels.
# Usage: test/explain/check_html.sh TRACE_REWRITE [WORK_DIR]
# Exit: 0 pass, 1 fail, 77 skipped (no chromium).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/test/browser/chromium.sh"
rewrite=$(realpath -m "${1:?usage: check_html.sh TRACE_REWRITE [WORK_DIR]}")
work=$(realpath -m "${2:-$(mktemp -d)}")
[[ -n "$CHROMIUM" ]] || { echo "SKIP: chromium not found (apt-get install chromium)"; exit 77; }
[[ -x "$rewrite" ]] || { echo "FAIL: no trace-rewrite at $rewrite"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# field CHECK KEY: a number from the page's "key=value ..." line.
field() { grep -o "\b$2=[0-9]*" <<<"$1" | cut -d= -f2; }

for input in traced/two_kernels.cu strip/real_gemm_wmma_pipeline.cu; do
  name=$(basename "$input" .cu)
  out=$work/$name
  mkdir -p "$out"
  if ! "$rewrite" --traced --explain=html --explain-dir "$out/explain" \
      "$root/test/inputs/$input" -o "$out/$name.traced.cu" 2>"$out/stderr"; then
    fail "$name: trace-rewrite failed: $(cat "$out/stderr")"
    continue
  fi
  html=$out/explain/latest/$name.cu.html
  [[ -s "$html" ]] || { fail "$name: no report at $html"; continue; }
  grep -q "explain report: .*$name.cu.html" "$out/stderr" || fail "$name: no stderr line saying where"
  headless --window-size=1400,900 --virtual-time-budget=5000 --dump-dom "file://$html" \
    >"$out/dom.html" 2>"$out/chromium.log"
  check=$(sed -n 's/.*<div id="explain-check"[^>]*>\([^<]*\)<\/div>.*/\1/p' "$out/dom.html")
  if [[ -z "$check" ]]; then
    fail "$name: the page wrote no counts (script did not run? log: $out/chromium.log)"
    continue
  fi
  # The page never logs: any console line (an uncaught exception, console.error) is a failure.
  if grep -E "Uncaught|:CONSOLE" "$out/chromium.log" >/dev/null; then
    fail "$name: console message: $(grep -m1 -E 'Uncaught|:CONSOLE' "$out/chromium.log")"
  fi
  map_kernels=$(grep -o '"kernel": *"[^"]*"' "$out/$name.trace_map.json" | wc -l)
  [[ $map_kernels -ge 2 ]] || fail "$name: the decode map has $map_kernels kernels, expected several"
  [[ "$(field "$check" kernels)" == "$map_kernels" ]] ||
    fail "$name: page shows $(field "$check" kernels) kernel entries, decode map has $map_kernels"
  [[ "$(field "$check" sidebar_regions)" == "$(field "$check" regions)" ]] ||
    fail "$name: sidebar and sections disagree ($check)"
  [[ "$(field "$check" stages)" == 8 ]] || fail "$name: expected 8 stages ($check)"
  pass "$name: $check"
done

[[ $failures -eq 0 ]] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
