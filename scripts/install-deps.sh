#!/usr/bin/env bash
# Debian 12 packages the build and the tests need; installs only what is missing.
set -euo pipefail
packages=(cmake ninja-build make g++ clang-19 libclang-19-dev llvm-19-dev libomp-19-dev
          libclang-rt-19-dev nlohmann-json3-dev libcli11-dev libgtest-dev pre-commit python3-yaml
          chromium libsqlite3-dev sqlite3 python3-pandas nodejs eslint protobuf-compiler time
          ccache python3-dev python3-numpy pybind11-dev libgoogle-perftools-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[[ -x /usr/local/cuda/bin/nvcc ]] || echo "warning: no CUDA toolkit at /usr/local/cuda: nvcc checks will fail" >&2
