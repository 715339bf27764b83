# Sourced by the browser checks: find Debian's chromium and run it headless, offline, with a
# throw-away profile. Sets CHROMIUM, or leaves it empty when there is none.
CHROMIUM=${CHROMIUM:-}
if [[ -z "$CHROMIUM" ]]; then
  for c in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
    if [[ -x "$c" ]]; then CHROMIUM=$c; break; fi
  done
fi

# headless ARGS... : chromium with the flags every check uses; stderr carries the page console.
headless() {
  local profile
  profile=$(mktemp -d)
  timeout "${CHROMIUM_TIMEOUT:-240}" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-quic --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --disable-extensions --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 "$@"
  local rc=$?
  rm -rf "$profile"
  return $rc
}
