#!/usr/bin/env bash
# On a GPU machine (sm_90a, PyTorch, nvcc, no Clang), from the repository root, with
# .carry/fa3.tgz carried (bench/fa3/prepare.sh writes it here):
#   bench/fa3/gpu_run.sh build     FlashAttention-3 built by its own setup.py (build_ext --inplace),
#                                  narrowed by bench/fa3/switches.sh, with PYTORCH_NVCC=cutrace-nvcc
#                                  (the replay of the prepared rewrites, examples/torch_extension/
#                                  replay_nvcc.sh) for both placements, roles and sample, in
#                                  parallel; libcutrace.so built by cmake and linked through LDFLAGS
#   bench/fa3/gpu_run.sh test      FlashAttention-3's own test of that configuration
#                                  (test_flash_attn.py -k test_flash_attn_output) on the traced
#                                  roles build, recording with the default launch selection; then
#                                  run_attention.py recorded (roles, sample), run files to $OUT
#   bench/fa3/gpu_run.sh measure   ncu kernel time (gpu__time_duration.sum) of run_attention.py's
#                                  launches: roles with every launch recorded and with none (the
#                                  original kernel), sample with every launch recorded
# Results in $OUT/fa3/ (results.md, logs, run files). `all` runs the three in order.
# FA3_PLACEMENTS="roles" builds and runs one placement only (build, test).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
root=$PWD
out=${FA3_OUT:-${OUT:-/tmp/out}/fa3}
mkdir -p "$out"
[[ -d build-fa3/fa/hopper_roles ]] || tar -xzf .carry/fa3.tgz
source bench/fa3/switches.sh
for s in "${FA3_SWITCHES[@]}"; do export "FLASH_ATTENTION_DISABLE_$s=TRUE"; done
b=$root/build-fa3/runtime
say() { echo "$*" | tee -a "$out/results.md"; }
pyenv() { # the carried pytest and einops, only where this Python lacks them
  local p=$root/build-fa3/fa/hopper_roles
  python3 -c 'import pytest' 2>/dev/null || p+=:$root/.carry/fa3/pylib_pytest
  python3 -c 'import einops' 2>/dev/null || p+=:$root/.carry/fa3/pylib_einops
  echo "$p"
}

build() {
  local start=$(date +%s)
  say "# FlashAttention-3 (bench/fa3) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  say "- $(python3 -c 'import sys, torch; print("Python", sys.version.split()[0], "PyTorch", torch.__version__)'), $(nvcc --version | tail -2 | head -1)"
  mkdir -p build-fa3/bin && ln -sf "$root/examples/torch_extension/replay_nvcc.sh" build-fa3/bin/cutrace-nvcc
  (cmake -S . -B "$b" -G Ninja -DCUTRACE_BUILD_TOOLS=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$root/.carry/fa3/prefix" -DCMAKE_INCLUDE_PATH="$root/.carry/fa3/prefix/include" &&
    cmake --build "$b" --target cutrace_shared -j8) >"$out/cmake.log" 2>&1 &
  local cm=$!
  for p in ${FA3_PLACEMENTS:-roles sample}; do
    (cd build-fa3/fa/hopper_$p && env PYTORCH_NVCC=cutrace-nvcc PATH="$root/build-fa3/bin:$PATH" \
       CUTRACE_MODE=traced CUTRACE_PREPARED="$root/.carry/fa3/$p" CUTRACE_INCLUDE="$root/runtime/include" \
       LDFLAGS="-L$b/runtime -Wl,--no-as-needed -lcutrace -Wl,--as-needed -Wl,-rpath,$b/runtime" MAX_JOBS=4 NVCC_THREADS=2 \
       python3 setup.py build_ext --inplace) >"$out/build_$p.log" 2>&1 &
  done
  wait $cm; say "- cmake libcutrace.so: exit $? ($(ls "$b"/runtime/libcutrace.so 2>/dev/null || echo missing))"
  wait
  for p in ${FA3_PLACEMENTS:-roles sample}; do
    local so=$(ls build-fa3/fa/hopper_$p/flash_attn_3/_C*.so 2>/dev/null | head -1)
    say "- build $p: ${so:-FAILED} ($(grep -c 'cutrace-nvcc (replay, traced): 1' "$out/build_$p.log") CUDA files through cutrace-nvcc; libcutrace.so linked: $( [[ -n $so ]] && ldd "$so" | grep -c libcutrace))"
  done
  say "- built in $(($(date +%s) - start)) s"
}

test_() {
  local p=$root/build-fa3/fa/hopper_roles runs=$out/runs
  mkdir -p "$runs"
  (cd "$p" && CUTRACE_OUTPUT="$runs/test" PYTHONPATH=$(pyenv) timeout 400 python3 -m pytest -q -x \
     test_flash_attn.py -k "test_flash_attn_output" -p no:cacheprovider) >"$out/test.log" 2>&1
  say "- FlashAttention-3's test (roles, traced): exit $? -- $(tail -1 "$out/test.log")"
  for q in ${FA3_PLACEMENTS:-roles sample}; do
    for c in "" --causal; do
      (cd "$root/build-fa3/fa/hopper_$q" && CUTRACE_OUTPUT="$runs/${q}${c/--/_}" CUTRACE_LAUNCHES=first:2 \
        python3 "$root/bench/fa3/run_attention.py" . --batch 1 --heads 16 --seqlen 4096 --iters 3 $c) >"$out/run_$q${c/--/_}.log" 2>&1
      say "- run_attention $q ${c:-non-causal} 1x4096x16: exit $? -- $(grep -E 'Passed|Failed' "$out/run_$q${c/--/_}.log" | tail -1) -- $(grep -h 'recorded' "$out/run_$q${c/--/_}.log" | tail -1)"
    done
  done
}

measure() {
  local n=0
  for cfg in "roles all" "roles none" "sample all"; do
    set -- $cfg
    (cd "$root/build-fa3/fa/hopper_$1" && CUTRACE_OUTPUT=/tmp/fa3-ncu CUTRACE_LAUNCHES=$2 \
      ncu --clock-control none --metrics gpu__time_duration.sum -k regex:device_kernel --csv \
        python3 "$root/bench/fa3/run_attention.py" . --batch 4 --heads 16 --seqlen 4096 --iters 30) \
      >"$out/ncu_$1_$2.csv" 2>"$out/ncu_$1_$2.log"
    say "- ncu $1 CUTRACE_LAUNCHES=$2: exit $?, $(grep -c gpu__time_duration "$out/ncu_$1_$2.csv") launches"
  done
}

case ${1:-all} in
  build) build ;;
  test) test_ ;;
  measure) measure ;;
  all) build && test_ && measure ;;
  build-detached|all-detached) # in the background, for machines whose commands are
    # time-limited: `build-wait` returns once it is done (or after $2 seconds, default 540)
    setsid nohup bash "$0" "${1%-detached}" >"$out/detached.log" 2>&1 </dev/null & echo $! >"$out/build.pid"
    echo "${1%-detached} started (pid $(cat "$out/build.pid"))" ;;
  build-wait)
    deadline=$(($(date +%s) + ${2:-540}))
    while kill -0 "$(cat "$out/build.pid")" 2>/dev/null && (($(date +%s) < deadline)); do sleep 5; done
    if kill -0 "$(cat "$out/build.pid")" 2>/dev/null; then echo "still building"; tail -3 "$out"/build_*.log; exit 3; fi
    cat "$out/results.md" ;;
  *) echo "usage: bench/fa3/gpu_run.sh build|test|measure|all|build-detached|all-detached|build-wait [S]" >&2; exit 2 ;;
esac
