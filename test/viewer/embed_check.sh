#!/usr/bin/env bash
# runtime/viewer/embed.cmake on a copy of runtime/viewer: the page it writes holds the stylesheet
# in place of its link and every module in the listed order; a module holding '</script' (which
# would end the page's script early) or the C++ literal's closing delimiter is refused, with the
# file named, and nothing is written.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cp -r "$root/runtime/viewer" "$work/viewer"
cmake -DOUT="$work/page.cpp" -P "$work/viewer/embed.cmake" || fail "embed.cmake failed on the sources"
grep -q '<link rel="stylesheet"' "$work/page.cpp" && fail "the stylesheet link is still there"
grep -qF "$(head -1 "$root/runtime/viewer/viewer.css")" "$work/page.cpp" ||
  fail "the stylesheet is not in the page"
# The modules' marker lines, in the order viewer_sources.cmake lists them.
cat >"$work/list.cmake" <<'LIST'
include(${SOURCES})
foreach(module IN LISTS CUTRACE_VIEWER_LAUNCH_JS CUTRACE_VIEWER_RUN_JS CUTRACE_VIEWER_START_JS)
  message("// ---- js/${module}.js ----")
endforeach()
LIST
listed=$(cmake -DSOURCES="$root/runtime/viewer/viewer_sources.cmake" -P "$work/list.cmake" 2>&1)
found=$(grep '^// ---- js/.*\.js ----$' "$work/page.cpp")
[[ "$found" == "$listed" ]] || fail "modules in the page: $(echo $found) (listed: $(echo $listed))"
echo "ok: the page holds the stylesheet and $(wc -l <<<"$found") modules in order"

refused() { # TEXT: appended to a module, the embedding must fail and write nothing
  cp -r "$root/runtime/viewer" "$work/bad"
  printf '%s\n' "$1" >>"$work/bad/js/format.js"
  if cmake -DOUT="$work/bad.cpp" -P "$work/bad/embed.cmake" >"$work/err" 2>&1; then
    fail "embedded a module holding $1"
  elif ! grep -q 'js/format.js' "$work/err"; then
    fail "the refusal does not name the file: $(cat "$work/err")"
  elif [[ -e "$work/bad.cpp" ]]; then
    fail "wrote a page though it refused"
  else
    echo "ok: refused $1"
  fi
  rm -rf "$work/bad" "$work/bad.cpp"
}
refused "const s = '</SCRIPT>';"
refused '// )cutrace_embed"'
((failures == 0)) || exit 1
