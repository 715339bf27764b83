#!/usr/bin/env bash
# The traced programs' runtime built with g++ alone on a GPU machine (no cmake build, no SQLite
# needed), from the repository root: libcutrace.a, libcutrace_analysis.a and libcutrace_format.a
# in OUT_DIR, objects under OUT_DIR/obj, compiler output appended to LOG.
#   test/device/build_runtime_gpp.sh OUT_DIR LOG [-I DIR]...    (the -I options: nlohmann's headers)
set -uo pipefail
out=$1 log=$2
shift 2
inc=(-Iruntime/include -I/usr/local/cuda/include "$@")
mkdir -p "$out"/obj/{format,analysis,capture}
compile() { g++ -std=c++17 -O2 "${inc[@]}" -c "$1" -o "$2" >>"$log" 2>&1; }
for f in runtime/src/format/*.cpp; do compile "$f" "$out/obj/format/$(basename "${f%.cpp}").o" & done
for f in runtime/src/analysis/*.cpp; do compile "$f" "$out/obj/analysis/$(basename "${f%.cpp}").o" & done
# The viewer page, embedded from runtime/viewer/ (docs/design.md, "The viewer page").
cmake -DOUT="$out/viewer_page.cpp" -P runtime/viewer/embed.cmake >>"$log" 2>&1 &&
  compile "$out/viewer_page.cpp" "$out/obj/analysis/viewer_page.o" &
for f in runtime/src/capture/*.cpp runtime/src/capture/outputs/all_formats.cpp; do
  compile "$f" "$out/obj/capture/$(basename "${f%.cpp}").o" &
done
wait
ar rcs "$out/libcutrace_format.a" "$out"/obj/format/*.o &&
  ar rcs "$out/libcutrace_analysis.a" "$out"/obj/analysis/*.o &&
  ar rcs "$out/libcutrace.a" "$out"/obj/capture/*.o ||
  { echo "BUILD FAILED: runtime"; tail -40 "$log"; exit 1; }
