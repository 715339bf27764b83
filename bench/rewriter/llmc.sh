#!/usr/bin/env bash
# Rewriter speed on llm.c's dev/cuda kernels, annotated as a user would (bench/corpus/annotate.py:
# a group and a range at the top of every kernel, a record in every braced loop): trace-rewrite
# --traced (the host pass and the device pass) and strip against one Clang parse of the same file
# (clang++-19 -fsyntax-only --cuda-device-only with the tool's compat flags). Wall seconds, the
# median of REPS runs of each; the ratios per file and their median over the files.
# usage: bench/rewriter/llmc.sh LLMC_GIT_DIR [TRACE_REWRITE] [REPS]     (prints a markdown table)
# The sources are extracted at the pinned commit into bench/rewriter/llmc/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
llmc_git=${1:?llm.c git dir (a clone, or git clone --bare)}
tool=$(realpath "${2:-build/bin/trace-rewrite}")
reps=${3:-5}
llmc_commit=f1e2ace651495b74ae22d45d1723443fd00ecd3a
kernels=${LLMC_KERNELS:-"gelu_forward gelu_backward residual_forward encoder_forward encoder_backward layernorm_forward layernorm_backward softmax_forward crossentropy_forward crossentropy_softmax_backward adamw fused_residual_forward global_norm permute attention_forward matmul_forward"}
src=bench/rewriter/llmc
rm -rf "$src" && mkdir -p "$src/stubs" "$src/out"
git --git-dir="$llmc_git" archive "$llmc_commit" dev/cuda | tar -x -C "$src" --strip-components=2
: > "$src/stubs/texture_fetch_functions.h"
cp rewriter/compat/cuda13_intrinsics.h "$src/stubs/cutrace_cuda13_intrinsics.h"
parse=(clang++-19 -x cuda -std=c++17 --cuda-path=/usr/local/cuda --cuda-gpu-arch=sm_90
  --cuda-device-only -Wno-unknown-cuda-version -w -fsyntax-only -isystem /usr/local/cuda/include/cccl
  -isystem "$src/stubs" -include "$src/stubs/cutrace_cuda13_intrinsics.h" -Iruntime/include -I"$src")
compile=(-- nvcc -std=c++17 -arch=sm_90 -O3 --use_fast_math -I"$src")

# median_of CMD...: the median wall seconds of REPS runs (a failing run stops the script; Clang's
# own parse may report errors on code nvcc accepts, which the tool tolerates: CLANG_MAY_FAIL=1)
median_of() {
  local times=()
  for ((r = 0; r < reps; r++)); do
    /usr/bin/time -f "%e" -o "$src/t" "$@" >/dev/null 2>"$src/err" || ((${CLANG_MAY_FAIL:-0})) ||
      { echo "FAILED: $*" >&2; cat "$src/err" >&2; return 1; }
    times+=("$(tail -n 1 "$src/t")")  # after "Command exited with non-zero status N"
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p"
}

rows=$src/out/rows.tsv
: > "$rows"
for k in $kernels; do
  f=$src/$k.cu a=$src/$k.annotated.cu
  python3 bench/corpus/annotate.py "$f" "$a" >/dev/null
  tp=$(CLANG_MAY_FAIL=1 median_of "${parse[@]}" "$a")
  tt=$(median_of "$tool" --traced "$a" -o "$src/out/$k.traced.cu" "${compile[@]}")
  ts=$(median_of "$tool" "$a" -o "$src/out/$k.strip.cu")
  cmp -s "$src/out/$k.strip.cu" "$f" || { echo "strip of $k differs from the original" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$(grep -c 'TRACE_[A-Z_]*(' "$a")" "$tp" "$tt" "$ts" >> "$rows"
done
python3 - "$rows" "$reps" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
print(f"median wall seconds of {sys.argv[2]} runs each")
print("| file | annotations | clang parse s | traced s (ratio) | strip s (ratio) |")
print("|---|---|---|---|---|")
traced, strip = [], []
for name, ann, p, t, s in rows:
    p, t, s = float(p), float(t), float(s)
    traced.append(t / p)
    strip.append(s / p)
    print(f"| {name}.cu | {ann} | {p:.2f} | {t:.2f} ({t / p:.2f}x) | {s:.3f} ({s / p:.3f}x) |")
print(f"| median over {len(rows)} files | | | {statistics.median(traced):.2f}x | {statistics.median(strip):.3f}x |")
PY
