#!/usr/bin/env bash
# The shipped pre-commit hook, run by Debian's pre-commit in a throwaway repository: a commit of a
# file whose payload has side effects is refused with the diagnostic; a clean file is accepted.
# usage: check.sh <cutrace source dir> <trace-rewrite binary>
set -euo pipefail
src=$1
tool=$2
if ! command -v pre-commit >/dev/null; then
  echo "FAIL: pre-commit is not installed (apt-get install pre-commit)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME=$work/cache HOME=$work
cd "$work"
git init -q repo && cd repo
git config user.email test@example.com && git config user.name test
# A local hook made from the shipped definition, with the entry pointing at the built tool.
python3 - "$src/.pre-commit-hooks.yaml" "$tool" > .pre-commit-config.yaml <<'PY'
import sys, yaml
hooks = yaml.safe_load(open(sys.argv[1]))
hook = dict(hooks[0])
hook["entry"] = hook["entry"].replace("trace-rewrite", sys.argv[2], 1)
print(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
PY
git add .pre-commit-config.yaml && git commit -qm config
pre-commit install >/dev/null

cat > bad.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *x, int n) {
  for (int i = 0; i < n;) {
    TRACE_RECORD("step", i++);
    x[i] = 0;
  }
}
CU
git add bad.cu
if out=$(git commit -qm bad 2>&1); then
  echo "FAIL: a side-effecting payload was committed"; echo "$out"; exit 1
fi
grep -q "bad.cu:4:26: error: payload of TRACE_RECORD has side effects" <<<"$out" ||
  { echo "FAIL: refusal without the diagnostic:"; echo "$out"; exit 1; }
echo "ok: commit of bad.cu refused with the diagnostic"
git reset -q bad.cu && rm bad.cu

cat > good.cu <<'CU'
#include <cutrace/trace.h>
__global__ void k(int *x, int n) {
  for (int i = 0; i < n; ++i) {
    TRACE_RECORD("step", i);
    x[i] = 0;
  }
}
CU
git add good.cu
out=$(git commit -qm good 2>&1) || { echo "FAIL: clean file refused:"; echo "$out"; exit 1; }
echo "ok: commit of good.cu accepted"
