#!/usr/bin/env bash
# Extracts the corpus sources (C/C++/CUDA sources and headers only) from fetched git checkouts
# at the pinned commits into bench/corpus/src/ (git-ignored; third-party sources are never committed).
# usage: bench/corpus/checkout.sh CUDA_SAMPLES_GIT_DIR GGML_GIT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
samples_git=${1:?cuda-samples git dir}
ggml_git=${2:?ggml git dir}
# Pinned commits: keep in step with the header of files.txt.
samples_commit=c94ff366aed18c797b8a85dfaac7817b0228b420
ggml_commit=d99724f2b141fed9e1a9f402213506c081433465

# extract GIT_DIR COMMIT DEST PATH...: writes every source/header blob under PATH... to DEST
extract() {
  local git_dir=$1 commit=$2 dest=$3
  shift 3
  git --git-dir="$git_dir" cat-file -e "$commit^{commit}" ||
    { echo "commit $commit is not in $git_dir" >&2; return 1; }
  git --git-dir="$git_dir" ls-tree -r --name-only "$commit" -- "$@" |
    grep -E '\.(cu|cuh|h|hpp|hxx|inl|inc|c|cc|cpp)$' |
    while IFS= read -r path; do
      mkdir -p "$dest/$(dirname "$path")"
      git --git-dir="$git_dir" cat-file blob "$commit:$path" > "$dest/$path"
    done
}
rm -rf "$here/src"
extract "$samples_git" "$samples_commit" "$here/src/cuda-samples" Samples Common
extract "$ggml_git" "$ggml_commit" "$here/src/ggml" include src/ggml-cuda src/ggml-common.h src/ggml-impl.h src/ggml-backend-impl.h
echo "sources in $here/src"
