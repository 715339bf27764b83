#!/usr/bin/env bash
# cutrace-nvcc with paths nvcc accepts (docs/cli.md, "cutrace-nvcc"): a source and an object in a
# folder whose name holds a space, a comma or a quote build wherever nvcc builds them, traced and
# stripped, and the source's `#include "h.h"` still finds the header beside it.
# No GPU needed: objects are built, never run.
#
# usage: check_paths.sh <cutrace-nvcc> <nvcc>
set -uo pipefail
wrapper=$(realpath "$1")
nvcc=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cutrace-paths.XXXXXX")
trap 'rm -rf "$work"' EXIT
source "$here/../support/checks.sh"

rule_for() { # the rule's name part for a folder name
  case $1 in *" "*) echo Space ;; *,*) echo Comma ;; *\'*) echo Quote ;; esac
}
for dir in "my dir" "a,b" "it's"; do
  mkdir -p "$work/$dir"
  printf '#define SCALE 3\n' >"$work/$dir/h.h"
  printf '#include <cutrace/trace.h>\n#include "h.h"\n__global__ void k(int *x) {\n  TRACE_RECORD("k");\n  x[0] = SCALE;\n}\n' \
    >"$work/$dir/k.cu"
  rule=$(rule_for "$dir")
  (cd "$work" && "$nvcc" -arch=sm_90 -c "$dir/k.cu" -o "$dir/plain.o") >"$work/plain.log" 2>&1 ||
    { fail "Paths.NvccBuildsIn${rule}Folder"; cat "$work/plain.log"; continue; }
  for mode in traced strip; do
    Mode=${mode^}
    if (cd "$work" && CUTRACE_MODE=$mode CUTRACE_NVCC=$nvcc "$wrapper" -arch=sm_90 -c "$dir/k.cu" \
      -o "$dir/$mode.o") >"$work/$mode.log" 2>&1 && [[ -f "$work/$dir/$mode.o" ]]; then
      pass "Paths.${Mode}BuildSucceedsIn${rule}FolderWhereNvccDoes"
    else
      fail "Paths.${Mode}BuildSucceedsIn${rule}FolderWhereNvccDoes"
      cat "$work/$mode.log"
    fi
  done
done
[[ $failures == 0 ]]
