#!/usr/bin/env bash
# Run here: the sources test/device/h200_recorder2.sh compiles on the H200. The traced and stripped
# sources of test/device/prepare_recorder.sh, plus four copies of the traced hopper_pipeline with
# some of its scoped ranges removed (the generated `cutrace::Range` declarations of sites listed
# below), to see which ranges the recording cost comes from:
#   hopper_prod (producer ranges only), hopper_cons (consumer ranges only),
#   hopper_nowait (all but the consumer's "wait"), hopper_nocompute (all but its "compute").
#   bash test/device/prepare_recorder2.sh [trace-rewrite]
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/device/prepare_recorder.sh "$@"
G=.carry/gen
# Sites of hopper_pipeline.trace_map.h: 0 wait_empty, 1 load (producer); 2 wait, 3 compute,
# 4 epilogue (consumer).
for v in prod:2,3,4 cons:0,1 nowait:2 nocompute:3; do
  name=${v%%:*} ids=${v#*:}
  mkdir -p "$G/hopper_$name"
  cp "$G"/hopper_pipeline/hopper_pipeline.trace_map.* "$G/hopper_$name/"
  f=$G/hopper_$name/hopper_pipeline.traced.cu
  cp "$G/hopper_pipeline/hopper_pipeline.traced.cu" "$f"
  for i in ${ids//,/ }; do
    sed -i "s|cutrace::Range __cutrace_range_$i([^;]*;|/* range $i removed */|" "$f"
  done
  echo "hopper_$name: $(grep -c 'removed \*/' "$f") ranges removed"
done
