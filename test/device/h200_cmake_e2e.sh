#!/usr/bin/env bash
# End to end on the H200 through CMake (see prepare_cmake_e2e.sh): install the cutrace package,
# build examples/ with find_package(cutrace) + cutrace_instrument, TRACED ON and OFF, run both
# with no host-code edits, check the recorded buffers, time the kernels (--repeat 21).
# Leaves $OUT/h200_cmake_e2e.tgz.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
root=$PWD
R=$root/build-e2e
rm -rf "$R" && mkdir -p "$R/tool/bin" "$R/tool/res" "$R/logs" "$R/traces"
cmake -DOUT="$R/viewer_page.cpp" -P runtime/viewer/embed.cmake # the viewer page: docs/design.md
xz -dc .carry/tool/trace-rewrite.xz > "$R/tool/bin/trace-rewrite" && chmod +x "$R/tool/bin/trace-rewrite"
tar xJf .carry/tool/clang-resource.tar.xz -C "$R/tool/res"
export CUTRACE_CLANG_RESOURCE_DIR=$R/tool/res/19
{ cat /etc/os-release | head -2; ldd --version | head -1; "$R/tool/bin/trace-rewrite" --version; } 2>&1 | tee "$R/logs/env.txt"

echo "== install the package (runtime only; the tool comes from .carry)"
cmake -S . -B "$R/pkg" -G Ninja -DCUTRACE_BUILD_TOOLS=OFF -DCUTRACE_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$root/.carry/njson" -DCMAKE_INSTALL_PREFIX="$R/prefix" > "$R/logs/pkg.txt" 2>&1 &&
  cmake --build "$R/pkg" >> "$R/logs/pkg.txt" 2>&1 && cmake --install "$R/pkg" >> "$R/logs/pkg.txt" 2>&1
echo "exit $?"; tail -3 "$R/logs/pkg.txt"

for traced in ON OFF; do
  echo "== examples, CUTRACE_EXAMPLES_TRACED=$traced"
  cmake -S examples -B "$R/ex_$traced" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$R/prefix;$root/.carry/njson" -DCUTRACE_EXAMPLES_TRACED=$traced \
    -DCUTRACE_REWRITE_EXECUTABLE="$R/tool/bin/trace-rewrite" > "$R/logs/ex_$traced.txt" 2>&1 &&
    cmake --build "$R/ex_$traced" -v >> "$R/logs/ex_$traced.txt" 2>&1
  echo "exit $?; trace-rewrite steps run: $(grep -c 'trace-rewrite.*--traced' "$R/logs/ex_$traced.txt")"
done
for traced in ON OFF; do
  for ex in warp_specialized/warp_specialized reduction/reduction; do
    name=$(basename $ex)
    CUTRACE_PER_LAUNCH=1 CUTRACE_OUTPUT="$R/traces/${name}_$traced" CUTRACE_FORMAT=ctrace,json \
      "$R/ex_$traced/$ex" --repeat 21 > "$R/logs/run_${name}_$traced.txt" 2>&1
    echo "$name TRACED=$traced: exit $?, files $(ls "$R/traces/${name}_$traced" 2>/dev/null | wc -l)"
    grep -v "^cutrace: wrote" "$R/logs/run_${name}_$traced.txt"
  done
done
g++ -std=c++17 -O2 -Iruntime/include -I.carry/njson/include test/device/check_ctrace.cpp \
  runtime/src/format/*.cpp runtime/src/analysis/*.cpp "$R/viewer_page.cpp" \
  -o "$R/check_ctrace" && "$R/check_ctrace" "$R/traces/warp_specialized_ON/ws_gemm.ctrace" "$R/traces/reduction_ON/block_sum.ctrace" 2>&1 | tail -16 | tee "$R/logs/check.txt"
cp "$R/traces/warp_specialized_ON/ws_gemm.ctrace" "$R/logs/ws_gemm_cmake.ctrace" 2>/dev/null
tar czf "$OUT/h200_cmake_e2e.tgz" -C "$R" logs
