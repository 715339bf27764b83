#!/usr/bin/env bash
# examples/multifile on a GPU machine that has nvcc but no Clang, in two steps (from the
# repository root):
#   here:   examples/multifile/run_on_h200.sh prepare [<trace-rewrite>]   (default build/bin/...)
#           writes the traced sources, their header copies and decode maps, and nlohmann's
#           headers for the runtime, under .carry/multifile/ (ignored by git)
#   device: examples/multifile/run_on_h200.sh run          with .carry/multifile carried
#           builds the traced program and the plain one with nvcc only, runs the traced one
#           (CUTRACE_OUTPUT=...) and again with CUTRACE=0, runs the plain one, and copies the
#           .ctrace files, stdout and logs to $OUT/multifile/ (test/data/h200/multifile/ holds
#           that folder; runtime_multifile_fixture_test.cpp checks it)
set -uo pipefail
cd "$(dirname "$0")/../.."
carry=.carry/multifile
src=examples/multifile

prepare() {
  local tool=${1:-build/bin/trace-rewrite}
  rm -rf "$carry" && mkdir -p "$carry/gen" "$carry/include" || return 1
  for f in kernels main; do
    # Relative paths: the #line directives then name the sources as the device checkout has them.
    "$tool" --traced "$src/$f.cu" -o "$carry/gen/$f.traced.cu" -- -std=c++17 \
      -isystem "$src/third_party" || return 1
  done
  cp -r /usr/include/nlohmann "$carry/include/" || return 1
  find "$carry/gen" -type f | sort
}

run() {
  export PATH=/usr/local/cuda/bin:$PATH
  local R=$PWD/build-multifile
  rm -rf "$R" && mkdir -p "$R/logs"
  local nvcc=(nvcc -std=c++17 -O2 -arch=sm_90 -Iruntime/include -I"$carry/include"
    -isystem "$src/third_party")
  # The `cutrace` runtime with the .ctrace output only (runtime/CMakeLists.txt), and the viewer
  # page cutrace_analysis embeds (docs/design.md, "The viewer page").
  cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake >"$R/logs/embed_viewer.txt" 2>&1
  local runtime=(runtime/src/format/*.cpp runtime/src/analysis/*.cpp runtime/src/capture/*.cpp
    runtime/src/capture/outputs/ctrace_only.cpp "$R/viewer_page.cpp")
  nvidia-smi --query-gpu=name,driver_version --format=csv >"$R/logs/gpu.txt" 2>&1
  "${nvcc[@]}" -DCUTRACE_TRACED "$carry/gen/kernels.traced.cu" "$carry/gen/main.traced.cu" \
    "${runtime[@]}" -o "$R/multifile_traced" >"$R/logs/build_traced.txt" 2>&1 &
  "${nvcc[@]}" "$src/kernels.cu" "$src/main.cu" -o "$R/multifile_plain" \
    >"$R/logs/build_plain.txt" 2>&1 &
  wait
  for b in traced plain; do
    [[ -x $R/multifile_$b ]] || { echo "BUILD FAILED: $b"; cat "$R/logs/build_$b.txt"; }
  done

  CUTRACE_OUTPUT="$R/traces" CUTRACE_FORMAT=ctrace "$R/multifile_traced" \
    >"$R/logs/stdout_traced.txt" 2>"$R/logs/stderr_traced.txt"
  echo "traced: exit $?, files: $(ls "$R/traces" 2>/dev/null | tr '\n' ' ')"
  CUTRACE=0 CUTRACE_OUTPUT="$R/traces_off" "$R/multifile_traced" \
    >"$R/logs/stdout_cutrace0.txt" 2>"$R/logs/stderr_cutrace0.txt"
  echo "CUTRACE=0: exit $?, files: $(ls "$R/traces_off" 2>/dev/null | wc -l)"
  "$R/multifile_plain" >"$R/logs/stdout_plain.txt" 2>&1
  echo "plain: exit $?"
  cat "$R/logs/stdout_traced.txt" "$R/logs/stderr_traced.txt"

  mkdir -p "$OUT/multifile"
  cp "$R"/traces/*.ctrace "$R"/logs/* "$OUT/multifile/" 2>/dev/null
  ls "$OUT/multifile"
}

case ${1:-} in
  prepare) shift; prepare "$@" ;;
  run) run ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
