#!/usr/bin/env bash
# cutrace-nvcc's part in a torch build, replayed on a machine without Clang (docs/torch.md, "On
# a GPU machine without Clang"): each CUDA input whose file name has a copy rewritten ahead of
# time in $CUTRACE_PREPARED/<mode>/ (examples/torch_extension/prepare.sh) is replaced by it, and
# the flags cutrace-nvcc adds in that mode are added (traced: -DCUTRACE_TRACED and cutrace's
# include dir; strip: the include dir); mode off passes the command through. The rest of the
# command line, the exit status and the outputs are nvcc's. Put on PATH as `cutrace-nvcc`.
set -uo pipefail
mode=${CUTRACE_MODE:-traced}
nvcc=${CUTRACE_NVCC:-/usr/local/cuda/bin/nvcc}
prepared=${CUTRACE_PREPARED:?CUTRACE_PREPARED names the folder prepare.sh wrote}
include=${CUTRACE_INCLUDE:?CUTRACE_INCLUDE names cutrace runtime/include}
[[ $mode == off ]] && exec "$nvcc" "$@"
args=() replaced=0
for a in "$@"; do
  if [[ $a == *.cu && -f $prepared/$mode/$(basename "$a") ]]; then
    args+=("$prepared/$mode/$(basename "$a")")
    replaced=$((replaced + 1))
  else
    args+=("$a")
  fi
done
extra=(-I"$include")
[[ $mode == traced ]] && extra+=(-DCUTRACE_TRACED -I"$prepared/traced")
if ((replaced == 0)); then
  for a in "$@"; do
    [[ $a == *.cu ]] && { echo "cutrace-nvcc (replay): no prepared copy of $a" >&2; exit 1; }
  done
fi
echo "cutrace-nvcc (replay, $mode): $replaced CUDA input(s) replaced" >&2
exec "$nvcc" "${extra[@]}" "${args[@]}"
