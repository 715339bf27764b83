#!/usr/bin/env bash
# Set up, build, and run trace-rewrite on the bundled example: strip (checked against the
# never-annotated original) and traced (output under build/demo/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target trace-rewrite
example=test/inputs/strip/real_gemm_wmma_pipeline.cu
echo "== strip $example (first lines of the diff against the annotated source)"
build/bin/trace-rewrite "$example" -o build/demo/stripped.cu
diff -u "$example" build/demo/stripped.cu | head -40 || true
echo "== verify-strip against its never-annotated twin"
build/bin/trace-rewrite --verify-strip "$example" --against "${example%.cu}.plain.cu" && echo "byte-identical"
echo "== traced: build/demo/$(basename "${example%.cu}").traced.cu and its decode map"
build/bin/trace-rewrite --traced "$example" -o "build/demo/$(basename "${example%.cu}").traced.cu"
ls -l build/demo
