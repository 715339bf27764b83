#!/usr/bin/env bash
# Run here: packs what the H200 needs to build the examples through CMake with the real
# trace-rewrite (the device has no Clang libraries): a trace-rewrite linked statically against
# Clang/LLVM, Clang's resource headers, and nlohmann_json's headers and CMake package, under
# .carry/. Then call the device with  command: bash test/device/h200_cmake_e2e.sh  carry: [".carry"]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=.carry/tool
rm -rf "$out" && mkdir -p "$out" .carry/njson/include .carry/njson/share/cmake
# LLVM's Support library calls arc4random (glibc >= 2.36); the device's glibc may be older.
printf '#include <stdint.h>\n#include <sys/random.h>\nuint32_t arc4random(void) { uint32_t v = 0; getrandom(&v, sizeof v, 0); return v; }\n' > "$out/arc4random.c"
gcc -O2 -c "$out/arc4random.c" -o "$out/arc4random.o"
clang_libs=$(ls /usr/lib/llvm-19/lib/libclang*.a | grep -v -E 'libclang\.a|libclang-cpp')
llvm_libs=$(llvm-config-19 --link-static --libs all | tr ' ' '\n' | grep -v Polly)
g++ -o "$out/trace-rewrite" "$build/tool/CMakeFiles/trace-rewrite.dir/trace-rewrite/main.cpp.o" \
  "$out/arc4random.o" "$build/rewriter/libcutrace_rewrite_report.a" \
  "$build/rewriter/libcutrace_rewriter.a" -L/usr/lib/llvm-19/lib \
  -Wl,--start-group $clang_libs $llvm_libs -Wl,--end-group -lrt -ldl -lm -lz \
  /lib/x86_64-linux-gnu/libzstd.so.1 -lpthread -s 2> >(grep -v warning >&2)
xz -T2 -6 "$out/trace-rewrite"
tar cJf "$out/clang-resource.tar.xz" -C /usr/lib/llvm-19/lib/clang 19
cp -r /usr/include/nlohmann .carry/njson/include/
cp -r /usr/share/cmake/nlohmann_json .carry/njson/share/cmake/
cp -r /usr/include/CLI .carry/njson/include/ # trace-view's command line (header-only)
cp -r /usr/share/cmake/CLI11 .carry/njson/share/cmake/
rm -f "$out"/arc4random.*
du -sh .carry
