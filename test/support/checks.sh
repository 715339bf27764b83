# Shared by the shell checks that build programs (sourced): PASS/FAIL lines, symbols of a binary,
# and the cubin comparison behind "stripped builds give identical machine code".
# Needs $work (a scratch folder) set by the caller; counts failures in $failures.
readelf=${LLVM_READELF:-llvm-readelf-19}
objcopy=${LLVM_OBJCOPY:-llvm-objcopy-19}
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # <rule> <command...>: passes when the command succeeds
  local rule=$1; shift
  if "$@"; then pass "$rule"; else fail "$rule"; fi
}
# Through a file: `nm | grep -q` fails under pipefail when grep stops reading early.
has_symbol() { nm -C "$1" >"$work/nm.txt" 2>/dev/null && grep -qF "$2" "$work/nm.txt"; }

# Same section list and the same bytes in every .text.* section.
same_text() { # <a.cubin> <b.cubin>
  "$readelf" -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] \(\.text\.[^ ]*\) .*/\1/p' >"$work/a.sec"
  "$readelf" -S -W "$2" | sed -n 's/^ *\[ *[0-9]*\] \(\.text\.[^ ]*\) .*/\1/p' >"$work/b.sec"
  cmp -s "$work/a.sec" "$work/b.sec" && [[ -s $work/a.sec ]] || return 1
  while read -r sec; do
    "$objcopy" --dump-section="$sec=$work/a.bin" "$1" "$work/a.tmp" &&
      "$objcopy" --dump-section="$sec=$work/b.bin" "$2" "$work/b.tmp" &&
      cmp -s "$work/a.bin" "$work/b.bin" || return 1
  done <"$work/a.sec"
}
