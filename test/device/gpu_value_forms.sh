#!/usr/bin/env bash
# On a GPU machine, from the repository root, after test/device/prepare_value_forms.sh here:
# builds test/device/value_forms.cu plain and its traced source (.carry/values/) with nvcc, runs
# both, and requires (1) each to exit 0, (2) the same output line for line (every query and the
# data the launches leave), (3) the traced run to record every launch it made
# ("cutrace: recorded L of L launches", L the program's own count) and to report none unrecorded.
#   bash test/device/gpu_value_forms.sh [arch]      arch default sm_90; results under $OUT
set -uo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-sm_90}
out=${OUT:-$PWD/build-value-forms-out}/value_forms
export PATH=/usr/local/cuda/bin:$PATH
C=.carry/values
[[ -f $C/value_forms.traced.cu ]] || { echo "no $C: run test/device/prepare_value_forms.sh"; exit 2; }
R=$PWD/build-value-forms
rm -rf "$R" "$out" && mkdir -p "$R" "$out"
failures=0
pass() { echo "PASS: $*" | tee -a "$out/summary.txt"; }
fail() { echo "FAIL: $*" | tee -a "$out/summary.txt"; failures=$((failures + 1)); }
nvidia-smi --query-gpu=name,driver_version --format=csv >"$out/gpu.txt" 2>&1 || true

bash test/device/build_runtime_gpp.sh "$R/runtime" "$out/runtime_build.log" -I$C/include || exit 1
NVCC=(nvcc -std=c++17 -O2 -arch="$arch" -Iruntime/include)
"${NVCC[@]}" test/device/value_forms.cu -o "$R/plain" >"$out/build_plain.log" 2>&1 &&
  pass "ValueForms.PlainBuilds" || fail "ValueForms.PlainBuilds"
"${NVCC[@]}" -DCUTRACE_TRACED -I$C/include $C/value_forms.traced.cu -o "$R/traced" \
  "$R/runtime/libcutrace.a" "$R/runtime/libcutrace_analysis.a" "$R/runtime/libcutrace_format.a" -lpthread \
  >"$out/build_traced.log" 2>&1 && pass "ValueForms.TracedBuilds" || fail "ValueForms.TracedBuilds"

"$R/plain" >"$out/plain.txt" 2>"$out/plain.err" && pass "ValueForms.PlainRuns" ||
  fail "ValueForms.PlainRuns"
CUTRACE_LAUNCHES=all CUTRACE_OUTPUT="$R/traces" "$R/traced" >"$out/traced.txt" 2>"$out/traced.err" &&
  pass "ValueForms.TracedRuns" || fail "ValueForms.TracedRuns"
diff "$out/plain.txt" "$out/traced.txt" >"$out/output.diff" &&
  pass "ValueForms.TracedProgramPrintsWhatThePlainOnePrints" ||
  fail "ValueForms.TracedProgramPrintsWhatThePlainOnePrints (output.diff)"
launches=$(sed -n 's/^launches \([0-9]*\),.*/\1/p' "$out/plain.txt")
if [[ -n $launches ]] && grep -q "^cutrace: recorded $launches of $launches launches" "$out/traced.err"; then
  pass "ValueForms.EveryLaunchThroughEveryValueFormIsRecorded ($launches)"
else
  fail "ValueForms.EveryLaunchThroughEveryValueFormIsRecorded (expected $launches; traced.err)"
fi
grep -q "unrecorded" "$out/traced.err" && fail "ValueForms.NoLaunchRanUnrecorded (traced.err)" ||
  pass "ValueForms.NoLaunchRanUnrecorded"
ls "$R/traces" >"$out/run_files.txt" 2>&1
[[ -s $out/run_files.txt ]] && pass "ValueForms.RunFileWritten" || fail "ValueForms.RunFileWritten"
echo "failures: $failures" | tee -a "$out/summary.txt"
[[ $failures == 0 ]]
