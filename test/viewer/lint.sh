#!/usr/bin/env bash
# ESLint over the viewer's modules (runtime/viewer/js, rules in runtime/viewer/.eslintrc.json),
# their Node tests (test/viewer) and the --explain report's script (rewriter/report/explain.js),
# with Debian's eslint. Exit: 0 clean, 1 problems, 77 no eslint.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
eslint=${ESLINT:-$(command -v eslint)}
if [[ -z "$eslint" ]]; then
  echo "SKIP: eslint not found (apt-get install eslint)"
  exit 77
fi
# Debian's eslint loads its parts from /usr/share/nodejs, where only Debian's own node looks.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
# -f unix: the default formatter needs a module (chalk) that Debian's package does not bring.
cd "$root" || exit 1
"$eslint" -f unix --max-warnings 0 runtime/viewer/js test/viewer rewriter/report/explain.js || exit 1
echo "eslint: no problems in runtime/viewer/js, test/viewer and rewriter/report/explain.js"
