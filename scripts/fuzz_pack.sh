#!/usr/bin/env bash
# Packs fuzz_strip and fuzz_ctrace to run on a Linux x86 machine without clang or LLVM
# (docs/reliability.md, "Long runs elsewhere"):
#   scripts/fuzz_pack.sh [OUT]          default OUT: .carry/fuzz
# Links the fuzzers from the objects of $BUILD_DIR (default build-fuzz, configured as
# scripts/fuzz.sh does) against the static Clang/LLVM libraries and libstdc++, so only glibc
# (2.34 or later) and libgcc_s are left to load, and puts beside them the seeds, the
# dictionaries, the kept regression inputs and fuzz/run_packed.sh (as run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-.carry/fuzz}")
build=${BUILD_DIR:-build-fuzz}
# fuzz_strip needs the scanner and strip of cutrace_rewriter only: their objects, not the
# library (the rest is Clang's parser, long to build with the sanitizers).
scan_objects=()
for f in lex/Annotation lex/AnnotationScanner lex/RawTokens lex/TokenNeighbours lex/MacroOrigins \
         strip/Strip; do
  scan_objects+=("$build/rewriter/CMakeFiles/cutrace_rewriter.dir/$f.cpp.o")
done
ninja -C "$build" fuzz_ctrace fuzz/CMakeFiles/fuzz_strip.dir/fuzz_strip.cpp.o \
  "${scan_objects[@]#$build/}"
rm -rf "$out" && mkdir -p "$out/bin" "$out/dict" "$out/seeds" "$out/regressions"

# LLVM's Support library and the static libstdc++ call arc4random (glibc >= 2.36); the target's
# glibc may be older. libgcc stays shared: its static unwinder needs glibc 2.35.
printf '#include <stdint.h>\n#include <sys/random.h>\nuint32_t arc4random(void) { uint32_t v = 0; getrandom(&v, sizeof v, 0); return v; }\n' >"$out/arc4random.c"
clang-19 -O2 -c "$out/arc4random.c" -o "$out/arc4random.o"
link=(clang++-19 -fsanitize=fuzzer,address,undefined -static-libstdc++
      -Wl,--strip-debug) # symbols kept: a report names the functions without a symbolizer
"${link[@]}" -o "$out/bin/fuzz_strip" "$build/fuzz/CMakeFiles/fuzz_strip.dir/fuzz_strip.cpp.o" \
  "${scan_objects[@]}" "$out/arc4random.o" -L/usr/lib/llvm-19/lib -Wl,--start-group \
  -lclangLex -lclangBasic -lLLVMFrontendOpenMP -lLLVMTargetParser -lLLVMSupport -lLLVMDemangle \
  -Wl,--end-group -lpthread -ldl -lm
# fuzz_ctrace's own link line, with libstdc++ static.
ctrace_link=$(ninja -C "$build" -t commands fuzz_ctrace | tail -1)
(cd "$build" && eval "${ctrace_link/ -o fuzz\/fuzz_ctrace / -static-libstdc++ -Wl,--strip-debug $out/arc4random.o -o $out/bin/fuzz_ctrace }")
rm -f "$out"/arc4random.*

bash fuzz/make_corpus.sh "$out/seeds-all" >/dev/null
for t in strip ctrace; do
  mv "$out/seeds-all/$t" "$out/seeds/$t"
  cp -r "fuzz/regressions/$t" "$out/regressions/$t"
done
rm -rf "$out/seeds-all"
cp fuzz/annotations.dict fuzz/ctrace.dict "$out/dict/"
cp fuzz/run_packed.sh "$out/run.sh"

# Self-contained: nothing but glibc's libraries (libresolv is glibc's; ASan links it) and libgcc_s
# left to load; glibc 2.34 or later.
for f in "$out"/bin/*; do
  if ldd "$f" | grep -v -E 'linux-vdso|ld-linux|lib(c|m|rt|dl|pthread|resolv|gcc_s)\.so' | grep -q .; then
    echo "fuzz_pack.sh: $f loads more than glibc:" >&2
    ldd "$f" >&2
    exit 1
  fi
done
du -sh "$out" "$out"/bin/*
for f in "$out"/bin/*; do
  echo "$f needs $(objdump -T "$f" | grep -oE 'GLIBC_[0-9.]+' | sort -uV | tail -1)"
done
