#!/usr/bin/env bash
# Renders a cutrace HTML timeline to PNG with headless chromium.
#   test/browser/screenshot.sh IN.html OUT.png [WIDTHxHEIGHT] [VIEW]
# VIEW is the URL hash, e.g. cta=3 or grid (default: the page's own choice). Exit 77 when
# chromium is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/chromium.sh"
[[ $# -ge 2 ]] || { echo "usage: $0 IN.html OUT.png [WIDTHxHEIGHT] [VIEW]" >&2; exit 2; }
[[ -n "$CHROMIUM" ]] || { echo "SKIP: chromium not found (apt-get install chromium)"; exit 77; }
in=$(realpath "$1")
out=$(realpath -m "$2")
size=${3:-1400x800}
url="file://$in${4:+#$4}"
tmp="$out.tmp.$$.png"
headless --hide-scrollbars --window-size="${size/x/,}" --virtual-time-budget=5000 \
  --screenshot="$tmp" "$url" 2>/dev/null >/dev/null
[[ -s "$tmp" ]] || { echo "screenshot: chromium wrote nothing for $url" >&2; exit 1; }
mv "$tmp" "$out"
echo "screenshot: wrote $out ($size, ${4:-default view})"
