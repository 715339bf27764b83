#!/usr/bin/env bash
# Here (with Clang): the rewrites the GPU machine cannot make, into .carry/torch/ (ignored by
# git): traced/scale_add.cu with its decode map, strip/scale_add.cu, and nlohmann's and CLI11's
# headers and CMake packages (the runtime and trace-view need them there).
#   examples/torch_extension/prepare.sh [<trace-rewrite>]     (default build/bin/trace-rewrite)
# Then on the GPU machine: examples/torch_extension/run_on_gpu.sh, carrying .carry/torch.
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/bin/trace-rewrite}
carry=.carry/torch src=examples/torch_extension/scale_add.cu
rm -rf "$carry" && mkdir -p "$carry/traced" "$carry/strip" "$carry/prefix/include" \
  "$carry/prefix/share/cmake"
"$tool" --traced "$src" -o "$carry/traced/scale_add.cu" -- -std=c++17 -Iruntime/include
"$tool" "$src" -o "$carry/strip/scale_add.cu"
cp -r /usr/include/nlohmann /usr/include/CLI "$carry/prefix/include/"
cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$carry/prefix/share/cmake/"
find "$carry" -maxdepth 2 -type f | sort
du -sh "$carry"
