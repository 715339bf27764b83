#!/usr/bin/env bash
# The runtime and trace-view configure with SQLite hidden (a GPU machine without sqlite3.h):
# CMake says --sqlite will be unavailable instead of stopping, and builds the SQLite
# library target from its stand-in; with CLI11 hidden as well, trace-view is left out and the
# runtime still configures.  usage: check_configure_without_sqlite.sh SOURCE_DIR
set -uo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! cmake -S "$src" -B "$work/b" -G Ninja -DCUTRACE_BUILD_TOOLS=OFF -DCUTRACE_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON >"$work/configure.txt" 2>&1; then
  echo "FAIL: configure stopped without SQLite:"; tail -20 "$work/configure.txt"; exit 1
fi
grep -q "SQLite3 not found (Debian: libsqlite3-dev): trace-view --sqlite will say it is unavailable" \
  "$work/configure.txt" || { echo "FAIL: configure did not say --sqlite is unavailable"; exit 1; }
grep -q "^CMAKE_DISABLE_FIND_PACKAGE_SQLite3:[A-Z]*=ON" "$work/b/CMakeCache.txt" || exit 1
# The stand-in's compile itself is sqlite_unavailable_tests' (main build); here the generated
# build must use it instead of the SQLite exporter.
grep -q "export_sqlite_unavailable.cpp" "$work/b/build.ninja" &&
  ! grep -q "export_sqlite.cpp" "$work/b/build.ninja" ||
  { echo "FAIL: the build does not use the stand-in for the SQLite exporter"; exit 1; }
echo "ok: configured with SQLite hidden; cutrace_sqlite builds from its stand-in"

# CLI11 hidden too (its package, and /usr/include where CLI/CLI.hpp lies): the runtime still
# configures, and CMake says trace-view is left out rather than stopping.
if ! cmake -S "$src" -B "$work/c" -G Ninja -DCUTRACE_BUILD_TOOLS=OFF -DCUTRACE_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
  -DCMAKE_IGNORE_PATH=/usr/include >"$work/configure-cli.txt" 2>&1; then
  echo "FAIL: configure stopped without CLI11:"; tail -20 "$work/configure-cli.txt"; exit 1
fi
grep -q "CLI11 not found (Debian: libcli11-dev): trace-view is not built" "$work/configure-cli.txt" &&
  grep -q "cutrace_format" "$work/c/build.ninja" && ! grep -q "trace-view.dir/main.cpp.o" "$work/c/build.ninja" ||
  { echo "FAIL: without CLI11 the runtime should configure and trace-view be left out"; exit 1; }
echo "ok: configured with CLI11 hidden; the runtime builds, trace-view is left out"
