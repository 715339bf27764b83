#!/usr/bin/env bash
# Library headers in traced builds (docs/design.md, "Headers"): the stand-in library of
# test/multifile/library, found through -isystem and -I, through trace-rewrite --traced,
# cutrace-nvcc and cutrace_instrument(). The three flows copy the same headers (those holding
# annotations, defining a kernel that reaches annotated code, or launching or naming one, and
# their includers), never the system header that holds none of this; each copy's #line names its
# original; the traced program compiles with a twin of every annotated kernel. No GPU.
#
# usage: check_library_headers.sh <trace-rewrite> <cutrace-nvcc> <cutrace build dir> <nvcc>
set -uo pipefail
tool=$(realpath "$1")
wrapper=$(realpath "$2")
build=$(realpath "$3")
nvcc=$4
source "$(dirname "${BASH_SOURCE[0]}")/../support/scratch.sh"
work=$(scratch_dir library-headers) || exit 1
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/library" && pwd)
flags=(-std=c++17 -arch=sm_90a -isystem "$lib/system" -I "$lib/include")

expected="include/probe/mark.h
include/probe/quiet.h
system/tile/adapter.h
system/tile/generic.h
system/tile/kernel.h
system/tile/launch.h
system/tile/tile.h"
copies() { # <headers folder>: the copies, relative to it, one a line, sorted
  (cd "$1" && find . -type f ! -name '*.trace_map.*' | sed 's|^\./||' | LC_ALL=C sort)
}
same_copies() { # <headers folder>
  [[ $(copies "$1") == "$expected" ]] || { echo "    copies:"; copies "$1" | sed 's/^/      /'; return 1; }
}
lines_name_originals() { # <headers folder>: each copy's first #line names the header it stands for
  local f
  while read -r f; do
    grep -m1 '^#line' "$1/$f" | grep -qF "\"$lib/$f\"" || { echo "    $f: $(grep -m1 '^#line' "$1/$f")"; return 1; }
  done <<<"$expected"
}
twins() { # <object or binary>
  has_symbol "$1" 'tile::tile_sum_cutrace_traced<4>(' && has_symbol "$1" 'probe::ping_cutrace_traced(' &&
    has_symbol "$1" 'probe::drain_cutrace_traced('
}

echo "--- trace-rewrite --traced"
out=$work/rewrite
mkdir -p "$out"
if "$tool" --traced "$lib/app.cu" -o "$out/app.traced.cu" --explain=terminal -- nvcc "${flags[@]}" \
  >"$out/log" 2>&1; then
  pass "LibraryHeaders.RewriteSucceeds"
  check "LibraryHeaders.AnnotatedReachingAndLaunchingHeadersAndTheirIncludersAreCopied" \
    same_copies "$out/app.traced.headers"
  check "LibraryHeaders.SystemHeaderWithNothingToTraceIsNotCopied" \
    test ! -e "$out/app.traced.headers/system/plain"
  check "LibraryHeaders.CopiesLineDirectivesNameTheOriginals" lines_name_originals "$out/app.traced.headers"
  check "LibraryHeaders.LauncherCopyLaunchesTheTwin" \
    grep -q 'tile_sum_cutrace_traced<N>' "$out/app.traced.headers/system/tile/launch.h"
  check "LibraryHeaders.ExplainNamesEveryCopyAndWhy" bash -c "
    [[ \$(grep -c 'note: traced copy of' '$out/log') == 7 ]] &&
    grep -q \"system header '$lib/system/tile/generic.h': defines a kernel that reaches annotated code\" '$out/log' &&
    grep -q \"system header '$lib/system/tile/adapter.h': launches or names a kernel that reaches\" '$out/log' &&
    grep -q \"system header '$lib/system/tile/tile.h': includes a copied header\" '$out/log'"
  if "$nvcc" "${flags[@]}" -I "$build/../runtime/include" -c "$out/app.traced.cu" -o "$out/app.o" \
    >"$out/nvcc.log" 2>&1; then
    check "LibraryHeaders.RewriteOutputCompilesWithTwins" twins "$out/app.o"
  else
    fail "LibraryHeaders.RewriteOutputCompilesWithTwins"
    cat "$out/nvcc.log"
  fi
else
  fail "LibraryHeaders.RewriteSucceeds"
  cat "$out/log"
fi

echo "--- cutrace-nvcc"
out=$work/wrapper
mkdir -p "$out"
if (cd "$lib" && CUTRACE_MODE=traced CUTRACE_NVCC="$nvcc" "$wrapper" "${flags[@]}" -MD -MF "$out/app.d" \
  -c app.cu -o "$out/app.o") >"$out/log" 2>&1; then
  pass "LibraryHeaders.WrapperBuildSucceeds"
  check "LibraryHeaders.WrapperCopiesTheSameHeaders" same_copies "$out/app.o.cutrace/app.traced.headers"
  check "LibraryHeaders.WrapperObjectHasTwins" twins "$out/app.o"
  check "LibraryHeaders.WrapperDependencyFileNamesTheOriginals" bash -c "
    grep -q '$lib/system/tile/launch.h' '$out/app.d' && grep -q '$lib/system/plain/math.h' '$out/app.d' &&
    ! grep -q 'traced.headers' '$out/app.d'"
else
  fail "LibraryHeaders.WrapperBuildSucceeds"
  cat "$out/log"
fi

echo "--- cutrace_instrument()"
if ! cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1; then
  fail "LibraryHeaders.PackageInstalls"
  cat "$work/install.log"
else
  out=$work/cmake
  if cmake -S "$lib" -B "$out" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90a >"$out.log" 2>&1 &&
    ninja -C "$out" -j2 >>"$out.log" 2>&1; then
    pass "LibraryHeaders.CMakeBuildSucceeds"
    check "LibraryHeaders.CMakeCopiesTheSameHeaders" same_copies "$out/cutrace/app/app.traced.headers"
    check "LibraryHeaders.CMakeBinaryHasTwins" twins "$out/app"
  else
    fail "LibraryHeaders.CMakeBuildSucceeds"
    cat "$out.log"
  fi
fi

if ((failures)); then
  echo "library headers: $failures failure(s)"
  exit 1
fi
echo "library headers: all checks passed"
