#!/usr/bin/env bash
# Every trace `trace-view --perfetto` writes decodes with protoc against the subset of Perfetto's
# protos we declare (test/perfetto/trace.proto, Perfetto's field numbers), leaving no field
# unnamed: a field at a number or wire type the protos do not give it would show as a bare
# number. Over every committed H200 fixture, as a launch (its first) and as a whole run.
# usage: check_protoc.sh TRACE-VIEW DATA-DIR   (protoc: Debian protobuf-compiler,
#        installed by scripts/install-deps.sh)
set -uo pipefail
tv=$1 data=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v protoc >/dev/null || { echo "FAIL protoc not found (Debian: protobuf-compiler)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0 traces=0
decode() { # TRACE NAME
  if ! protoc --proto_path="$here" --decode=cutrace_check.Trace "$here/trace.proto" \
      <"$1" >"$work/text" 2>"$work/err"; then
    echo "FAIL $2: protoc cannot decode it: $(head -3 "$work/err")"; fail=1; return
  fi
  local bare; bare=$(grep -cE '^ *[0-9]+[:{ ]' "$work/text")
  local packets; packets=$(grep -c '^packet {' "$work/text")
  if ((bare > 0 || packets == 0)); then
    echo "FAIL $2: $packets packets, $bare fields not in trace.proto: $(grep -m3 -E '^ *[0-9]+[:{ ]' "$work/text")"
    fail=1
  fi
  traces=$((traces + 1))
}
while IFS= read -r f; do
  name=${f#"$data"/}
  if "$tv" "$f" --perfetto "$work/run.pftrace" >/dev/null 2>&1; then
    decode "$work/run.pftrace" "$name (run)"
  else
    echo "FAIL $name: trace-view --perfetto failed"; fail=1
  fi
  if "$tv" "$f" --launch "$("$tv" list "$f" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ {print $1; exit}')" \
      --perfetto "$work/launch.pftrace" >/dev/null 2>&1; then
    decode "$work/launch.pftrace" "$name (launch)"
  fi
done < <(find "$data" -name '*.ctrace' | sort)
echo "$traces traces decoded"
((traces >= 40)) || { echo "FAIL fewer traces than the fixtures give"; fail=1; }
exit $fail
