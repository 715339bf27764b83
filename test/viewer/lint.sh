#!/usr/bin/env bash
# ESLint over the viewer's modules (runtime/viewer/js, rules in runtime/viewer/.eslintrc.json) and
# their Node tests (test/viewer), with Debian's eslint. Exit: 0 clean, 1 problems, 77 no eslint.
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
cd "$root" && "$eslint" -f unix --max-warnings 0 runtime/viewer/js test/viewer || exit 1
echo "eslint: no problems in runtime/viewer/js and test/viewer"
