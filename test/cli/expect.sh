# Sourced by the trace-view CLI checks: `expect NAME WANT_STATUS WANT_STDERR STATUS STDERR_FILE`
# prints ok/FAIL for one run of the tool and sets fail=1 when the status or stderr differ.
expect() {
  local got_err; got_err=$(cat "$5")
  if [[ $4 != "$2" || $got_err != "$3" ]]; then
    echo "FAIL $1: status $4 (want $2), stderr: $got_err"
    echo "     want stderr: $3"
    fail=1
  else
    echo "ok   $1"
  fi
}
