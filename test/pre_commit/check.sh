#!/usr/bin/env bash
# The shipped pre-commit hook, run by Debian's pre-commit in a throwaway repository: a commit of a
# file whose payload has side effects is refused with the diagnostic; a clean file is accepted; a
# file that needs -I is refused until the hook's args give the flags (docs/strip.md).
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

# A file that needs -I to parse: the checks that need the parse could not run, so the hook
# fails and says how to give it the flags, instead of saying Passed after the lexical checks.
mkdir include
cat > include/config.h <<'H'
#pragma once
__device__ inline int bump(int *p) { return ++*p; }
H
cat > needs_flags.cu <<'CU'
#include <cutrace/trace.h>
#include "config.h"
__global__ void k(int *x) {
  TRACE_RECORD("step", bump(x));
}
CU
git add include/config.h needs_flags.cu
if out=$(git commit -qm needs_flags 2>&1); then
  echo "FAIL: a file the hook could not parse was committed (Passed without checking)"
  echo "$out"; exit 1
fi
grep -q "needs_flags.cu: error: only the lexical rules were checked" <<<"$out" &&
  grep -q "in a pre-commit hook: args: \[-p, <build dir>\]" <<<"$out" ||
  { echo "FAIL: refusal without saying how to give the flags:"; echo "$out"; exit 1; }
echo "ok: commit of a file that needs -I refused, saying how to give the flags"

# The same file with the flags in the hook's args: now the header is read, and the side effect
# the payload reaches through it is found.
python3 - <<'PY'
import yaml
config = yaml.safe_load(open(".pre-commit-config.yaml"))
config["repos"][0]["hooks"][0]["args"] = ["--extra-arg=-Iinclude"]
open(".pre-commit-config.yaml", "w").write(yaml.safe_dump(config))
PY
git add .pre-commit-config.yaml
if out=$(git commit -qm needs_flags 2>&1); then
  echo "FAIL: with its flags, a side effect reached through a header was committed"
  echo "$out"; exit 1
fi
grep -q "needs_flags.cu:4:24: error: payload of TRACE_RECORD has side effects: call to 'bump'" <<<"$out" ||
  { echo "FAIL: with args, refusal without the side-effect diagnostic:"; echo "$out"; exit 1; }
echo "ok: with args: [--extra-arg=-Iinclude] the hook finds the side effect in the header"

sed -i 's/bump(x)/x\[0\]/' needs_flags.cu
git add needs_flags.cu
out=$(git commit -qm needs_flags 2>&1) || { echo "FAIL: clean file with flags refused:"; echo "$out"; exit 1; }
echo "ok: with its flags, a clean file that needs -I is accepted"
