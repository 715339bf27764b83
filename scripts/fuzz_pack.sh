#!/usr/bin/env bash
# Packs fuzz_strip and fuzz_ctrace to run on a Linux x86 machine without clang or LLVM
# (docs/reliability.md, "Long runs elsewhere"):
#   scripts/fuzz_pack.sh [OUT]          default OUT: .carry/fuzz
# Relinks the fuzzers of $BUILD_DIR (default build-fuzz; scripts/fuzz.sh builds it) against the
# static Clang/LLVM libraries and libstdc++, so only glibc is left to load, and puts beside them
# the seeds, the dictionaries, the kept regression inputs and fuzz/run_packed.sh (as run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.carry/fuzz}
build=${BUILD_DIR:-build-fuzz}
cmake --build "$build" --target fuzz_strip fuzz_ctrace
rm -rf "$out" && mkdir -p "$out/bin" "$out/dict" "$out/seeds" "$out/regressions"

# LLVM's Support library calls arc4random (glibc >= 2.36); the target's glibc may be older.
printf '#include <stdint.h>\n#include <sys/random.h>\nuint32_t arc4random(void) { uint32_t v = 0; getrandom(&v, sizeof v, 0); return v; }\n' >"$out/arc4random.c"
clang-19 -O2 -c "$out/arc4random.c" -o "$out/arc4random.o"
llvm_libs=$(llvm-config-19 --link-static --libs all | tr ' ' '\n' | grep -v Polly)
clang_libs=$(ls /usr/lib/llvm-19/lib/libclang*.a | grep -v -E 'libclang\.a|libclang-cpp')
link=(clang++-19 -fsanitize=fuzzer,address,undefined -static-libstdc++ -static-libgcc
      -Wl,--gc-sections -s)
"${link[@]}" -o "$out/bin/fuzz_strip" "$build/fuzz/CMakeFiles/fuzz_strip.dir/fuzz_strip.cpp.o" \
  "$out/arc4random.o" "$build/rewriter/libcutrace_rewriter.a" "$build/runtime/libcutrace_format.a" \
  -L/usr/lib/llvm-19/lib -Wl,--start-group $clang_libs $llvm_libs -Wl,--end-group \
  -Wl,-Bstatic -lz -lzstd -Wl,-Bdynamic -lrt -ldl -lm -lpthread
"${link[@]}" -o "$out/bin/fuzz_ctrace" "$build/fuzz/CMakeFiles/fuzz_ctrace.dir/fuzz_ctrace.cpp.o" \
  $(find "$build/runtime" -maxdepth 1 -name 'libcutrace_analysis.a' -o -maxdepth 1 \
    -name 'libcutrace_format.a') -lm -lpthread
rm -f "$out"/arc4random.*

bash fuzz/make_corpus.sh "$out/seeds-all" >/dev/null
for t in strip ctrace; do
  mv "$out/seeds-all/$t" "$out/seeds/$t"
  cp -r "fuzz/regressions/$t" "$out/regressions/$t"
done
rm -rf "$out/seeds-all"
cp fuzz/annotations.dict fuzz/ctrace.dict "$out/dict/"
cp fuzz/run_packed.sh "$out/run.sh"

# Self-contained: nothing but glibc's libraries left to load.
for f in "$out"/bin/*; do
  if ldd "$f" | grep -v -E 'linux-vdso|ld-linux|lib(c|m|rt|dl|pthread)\.so' | grep -q .; then
    echo "fuzz_pack.sh: $f loads more than glibc:" >&2
    ldd "$f" >&2
    exit 1
  fi
done
du -sh "$out" "$out"/bin/*
