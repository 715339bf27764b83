#!/usr/bin/env bash
# examples/torch_extension on a GPU machine with nvcc, cmake, ninja and PyTorch, without Clang
# (docs/torch.md, "Proof on a GPU"). From the repository root, with .carry/torch carried (written
# here by examples/torch_extension/prepare.sh):
#   examples/torch_extension/run_on_gpu.sh
# 1. builds libcutrace.so, trace-view and the cutrace Python module (pybind11 from torch's
#    include/) with cmake; 2. builds the extension three ways (setup.py, load, load_inline) in
#    three modes: traced and strip through PYTORCH_NVCC=cutrace-nvcc (the replay of prepared
#    rewrites, replay_nvcc.sh), and plain (no wrapper); 3. runs every traced module in one
#    process (default stream, a stream of its own, a CUDA graph, forked children) and checks one
#    complete run file holding every launch; an import-only process; the stripped and plain
#    modules' results; 4. compares each stripped .so's SASS with the plain one's (cuobjdump);
#    5. profiles the traced module with torch.profiler and merges the two into one Perfetto trace.
# Results in $OUT/torch/: results.md (every check, PASS or FAIL), logs, merged.pftrace.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}/torch
carry=$PWD/.carry/torch
work=$(mktemp -d)
mkdir -p "$out"
results=$out/results.md
: >"$results"
fail=0
say() { echo "$*" | tee -a "$results"; }
check() { # NAME COMMAND...: PASS when the command succeeds
  local name=$1; shift
  if "$@" >>"$out/checks.log" 2>&1; then say "- PASS $name"; else say "- FAIL $name"; fail=1; fi
}
say "# examples/torch_extension on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
say "- $(ldd --version | head -1)"
say "- $(python3 -c 'import sys, torch; print("Python", sys.version.split()[0], "PyTorch", torch.__version__)')"
say "- $(nvcc --version | tail -2 | head -1)"
[[ -d $carry/traced ]] || { say "- FAIL .carry/torch is missing: run examples/torch_extension/prepare.sh here and carry it"; exit 1; }

# 1. The runtime, trace-view and the Python module.
b=$PWD/build-torch
cmake -S . -B "$b" -G Ninja -DCUTRACE_BUILD_TOOLS=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$carry/prefix" -DCMAKE_INCLUDE_PATH="$carry/prefix/include" \
  -DPython3_EXECUTABLE="$(command -v python3)" >"$out/cmake.log" 2>&1 &&
  cmake --build "$b" --target cutrace_shared trace-view cutrace_python -j16 >>"$out/cmake.log" 2>&1
check "cmake builds libcutrace.so, trace-view and the Python module (pybind11 from torch)" \
  test -f "$b/runtime/libcutrace.so" -a -x "$b/bin/trace-view" -a -n "$(ls "$b"/python/cutrace/_cutrace*.so 2>/dev/null)"
export PYTHONPATH=$b/python CUTRACE_ROOT=$b
export CUTRACE_PREPARED=$carry CUTRACE_INCLUDE=$PWD/runtime/include
mkdir -p "$work/bin" && ln -sf "$PWD/examples/torch_extension/replay_nvcc.sh" "$work/bin/cutrace-nvcc"

# 2. Three ways, three modes.
ext=examples/torch_extension
declare -A so
for mode in traced strip off; do
  if [[ $mode == off ]]; then wrap=(env -u PYTORCH_NVCC); else wrap=(env PYTORCH_NVCC=cutrace-nvcc PATH="$work/bin:$PATH"); fi
  d=$work/$mode && mkdir -p "$d"
  (cd "$d" && cp "$OLDPWD/$ext"/{setup.py,bind.cpp,glue.h,scale_add.cu} . &&
    CUTRACE_MODE=$mode "${wrap[@]}" python3 setup.py build_ext --build-lib "$d/setup" \
      --build-temp "$d/setup-tmp") >"$out/build-$mode-setup.log" 2>&1
  so[$mode-setup]=$(ls "$d"/setup/scale_add_ext*.so 2>/dev/null | head -1)
  so[$mode-load]=$(CUTRACE_MODE=$mode "${wrap[@]}" python3 $ext/build_load.py "$d/load" 2>"$out/build-$mode-load.log" | tail -1)
  src=$PWD/$ext/scale_add.cu
  [[ $mode != off ]] && src=$carry/$mode/scale_add.cu
  so[$mode-inline]=$(CUTRACE_MODE=$mode env -u PYTORCH_NVCC python3 $ext/build_inline.py "$d/inline" "$src" 2>"$out/build-$mode-inline.log" | tail -1)
  for way in setup load inline; do
    check "$mode build by $way" test -f "${so[$mode-$way]}"
  done
done
check "the traced setup.py build went through cutrace-nvcc" grep -q "cutrace-nvcc (replay, traced): 1" "$out/build-traced-setup.log"
check "traced and plain load builds are different cached modules" test "${so[traced-load]}" != "${so[off-load]}"
check "traced modules link libcutrace.so" bash -c "ldd '${so[traced-setup]}' | grep -q libcutrace.so"

# 3. Runs.
runs=$work/runs
CUTRACE_OUTPUT=$runs/traced/ CUTRACE_LAUNCHES=all python3 $ext/test_extension.py \
  "${so[traced-setup]}" "${so[traced-load]}" "${so[traced-inline]}" >"$out/run-traced.log" 2>&1
check "traced modules compute the right results in one process" grep -q "^ok   a launch after" "$out/run-traced.log"
check "three traced modules in one process write one run file" test "$(ls "$runs"/traced/*.ctrace 2>/dev/null | wc -l)" -eq 1
python3 - "$runs/traced" >"$out/run-file.log" 2>&1 <<'PY'
import glob, sys
import cutrace
run = cutrace.open(glob.glob(sys.argv[1] + "/*.ctrace")[0])
l = run.launches()
print(run.completeness)
print(l[["sequence", "kernel", "stream", "in_graph", "complete"]])
assert run.completeness.complete, "incomplete"
assert len(l) == 13, "%d launches, 13 expected (4 per module + 1)" % len(l)
assert (l["stream"] != 0).sum() >= 3, "no launch on a stream of its own"
assert l["in_graph"].sum() == 3, "graph launches"
assert len(run.slices()) > 0
print(run.slices().head())
PY
check "the run file is complete and holds every launch (streams, graphs)" test $? -eq 0
CUTRACE_OUTPUT=$runs/import/ python3 $ext/test_extension.py --import-only "${so[traced-setup]}" "${so[traced-load]}" >"$out/run-import.log" 2>&1
python3 - "$runs/import" >>"$out/run-import.log" 2>&1 <<'PY'
import glob, sys
import cutrace
for f in glob.glob(sys.argv[1] + "/*.ctrace"):  # none expected; any there must be complete
    assert cutrace.open(f).completeness.complete, f + " is incomplete"
PY
check "an import-only process ends cleanly, leaving no incomplete run file" \
  bash -c "test $? -eq 0 && grep -q 'launched nothing' '$out/run-import.log'"
for mode in strip off; do
  CUTRACE_OUTPUT=$runs/$mode/ python3 $ext/test_extension.py "${so[$mode-setup]}" "${so[$mode-load]}" "${so[$mode-inline]}" >"$out/run-$mode.log" 2>&1
  check "$mode modules compute the right results" grep -q "^ok   a launch after" "$out/run-$mode.log"
  check "$mode modules write no run file" test ! -d "$runs/$mode"
done

# 4. Stripped machine code equals plain.
sass() { cuobjdump -sass "$1" | grep -v -e identifier -e '^Fatbin' -e '^$'; }
for way in setup load inline; do
  sass "${so[strip-$way]}" >"$work/strip-$way.sass" 2>&1
  sass "${so[off-$way]}" >"$work/off-$way.sass" 2>&1
  check "stripped $way build's SASS equals the plain build's" \
    bash -c "grep -q scale_add_kernel '$work/off-$way.sass' && cmp '$work/strip-$way.sass' '$work/off-$way.sass'"
done

# 5. One timeline with torch.profiler.
CUTRACE_OUTPUT=$runs/profiled/ CUTRACE_LAUNCHES=all python3 $ext/profile_and_merge.py record "${so[traced-setup]}" "$out/profiler.json" >"$out/profile.log" 2>&1
python3 $ext/profile_and_merge.py merge "$out/profiler.json" "$(ls "$runs"/profiled/*.ctrace | head -1)" "$out/merged.pftrace" >"$out/merge.log" 2>&1
check "every profiled launch is placed under its kernel slice" test $? -eq 0
cat "$out/merge.log" >>"$results"
ls -l "$runs"/profiled/ >>"$out/merge.log" 2>&1
cp "$(ls "$runs"/profiled/*.ctrace | head -1)" "$out/profiled.ctrace" 2>/dev/null
gzip -f "$out/profiler.json"
if ((fail)); then # what a failure needs, where the caller sees it
  for log in merge profile checks; do echo "--- $log.log (tail)"; tail -25 "$out/$log.log"; done
fi
# Few files come back from a GPU machine: the logs travel as one archive.
tar czf "$work/logs.tar.gz" -C "$out" --exclude merged.pftrace --exclude profiled.ctrace \
  --exclude profiler.json.gz --exclude results.md . 2>/dev/null
rm -f "$out"/*.log && mv "$work/logs.tar.gz" "$out/logs.tar.gz"
rm -rf "$work"
exit $fail
