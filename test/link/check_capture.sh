#!/usr/bin/env bash
# A program linked with cutrace_capture alone contains no exporter and no decoder; the same
# program linked with cutrace contains the exporters its automatic mode writes through.
# usage: test/link/check_capture.sh <linked with cutrace_capture> <linked with cutrace>
set -euo pipefail
capture=$1 full=$2
# Defined functions, demangled, without address and type ("cutrace::decode(...)").
symbols() { nm -C "$1" | awk '$2 ~ /^[TtWw]$/ { $1 = $2 = ""; sub(/^ +/, ""); print }'; }
capture_symbols=$(symbols "$capture")
full_symbols=$(symbols "$full")
defines() { grep -qE "^cutrace::$2(\[abi:[^]]*\])?\(" <<<"$1"; }
fail=0
for fn in export_html export_perfetto trace_summary_json decode; do
  defines "$capture_symbols" "$fn" && { echo "FAIL: $capture defines cutrace::$fn"; fail=1; }
done
for fn in export_html export_perfetto trace_summary_json decode; do
  defines "$full_symbols" "$fn" || { echo "FAIL: $full lacks cutrace::$fn"; fail=1; }
done
for which in capture_symbols full_symbols; do
  defines "${!which}" 'detail::write_launch_outputs' ||
    { echo "FAIL: $which: no cutrace::detail::write_launch_outputs"; fail=1; }
done
[[ $fail == 0 ]] && echo "ok: the capture-only program has no exporter and no decoder; cutrace has them"
exit $fail
