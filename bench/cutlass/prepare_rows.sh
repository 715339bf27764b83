#!/usr/bin/env bash
# Here, from the repository root: what bench/cutlass/gpu_rows.sh needs besides .carry/sweep.tgz
# (bench/cutlass/sweep.py CUTLASS_DIR --configs CONFIG --placements roles,top,sample): the
# recorder's headers as they were before rows were sized at launch (REV, default fb990fe, the
# last commit before), into .carry/rows/include.
#   bash bench/cutlass/prepare_rows.sh [REV]
set -euo pipefail
rev=${1:-fb990fe}
rm -rf .carry/rows && mkdir -p .carry/rows/include
git archive "$rev" runtime/include | tar -x -C .carry/rows --strip-components=1
echo ".carry/rows/include: runtime/include at $(git rev-parse --short "$rev")"
