#!/usr/bin/env bash
# render_pftrace.py draws the merge of a recorded torch.profiler trace and run (test/data/h100/torch):
# the profiler's kernel slice of the traced kernel, its SM slot tracks with the in-kernel rows, and
# the CPU thread that launched it.
#   check_render.sh TRACE-VIEW PFTRACE_TO_JSON DATA_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xz -dc "$3/profiled.ctrace.xz" >"$tmp/run.ctrace"
gunzip -c "$3/profiler.json.gz" >"$tmp/profiler.json"
"$1" merge-torch "$tmp/profiler.json" "$tmp/run.ctrace" -o "$tmp/m.pftrace" >/dev/null
"$2" "$tmp/m.pftrace" >"$tmp/m.json"
python3 "$here/render_pftrace.py" "$tmp/m.json" "$tmp/m.html" --kernel scale_add_kernel --nth 3 \
  --before-us 30 --after-us 8 --sm-tracks 8
fail=0
for want in '>SM 12[0-9] · slot 0<' '>scale_add_kernel_cutrace_traced' '>tiles<' '>thread 1856 (python3)<' '>aten::relu'; do
  grep -q -- "$want" "$tmp/m.html" || { echo "FAIL: the page lacks $want"; fail=1; }
done
if python3 "$here/render_pftrace.py" "$tmp/m.json" "$tmp/x.html" --kernel no_such_kernel 2>/dev/null; then
  echo "FAIL: a kernel the trace lacks was not an error"; fail=1
fi
[[ ! -e $tmp/x.html ]] || { echo "FAIL: a page was written for a kernel the trace lacks"; fail=1; }
((fail == 0)) && echo "ok: the merged window drawn"
exit $fail
