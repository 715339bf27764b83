#!/usr/bin/env bash
# One file of the viewer's Node tests (node:test): node_test.sh FILE.test.js
# Exit: 0 pass, 1 fail, 77 no node.
set -uo pipefail
node=${NODE:-$(command -v node || command -v nodejs)}
if [[ -z "$node" ]]; then
  echo "SKIP: node not found (apt-get install nodejs)"
  exit 77
fi
exec "$node" --test "$1"
