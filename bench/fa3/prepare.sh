#!/usr/bin/env bash
# Here (where trace-rewrite builds), from the repository root: FlashAttention-3's Hopper forward
# kernel annotated (bench/fa3/annotate.py) and rewritten as cutrace-nvcc would rewrite it inside
# FlashAttention-3's own setup.py build, for bench/fa3/gpu_run.sh on a GPU machine (which has no
# Clang). Sources never enter the repository: everything goes to build-fa3/ and .carry/fa3.tgz.
#   bench/fa3/prepare.sh [FA_GIT_DIR] [CUTLASS_GIT_DIR] [TRACE_REWRITE]
# FA_GIT_DIR / CUTLASS_GIT_DIR: git directories holding the commits of bench/fa3/COMMIT
# (default: the mirrors /work/.mirror/Dao-AILab+flash-attention/repo and NVIDIA+cutlass/repo).
#   1. build-fa3/fa/: hopper/ as published, hopper_roles/ and hopper_sample/ annotated, and
#      csrc/cutlass/include (what setup.py reads as ../csrc/cutlass);
#   2. strip of each annotated file gives FlashAttention-3's own back byte for byte;
#   3. trace-rewrite --traced of every CUDA file the narrowed build compiles (one head dimension,
#      one dtype, forward only: the FLASH_ATTENTION_DISABLE_* switches of bench/fa3/switches.sh),
#      with setup.py's nvcc flags, into .carry/fa3/<placement>/traced/, timed (rewrite.txt); rows
#      keep 4096 events (--max-events): a persistent CTA runs several tiles of 24 K/V steps each;
#   4. FlashAttention-3's test needs pytest and einops, which the GPU machine may lack: pytest
#      and its dependencies from Debian's packages (apt-get download) and einops from a git
#      directory (EINOPS_GIT_DIR, default /work/.mirror/arogozhnikov+einops/repo) go to
#      .carry/fa3/pylib_pytest and pylib_einops; gpu_run.sh uses them only where the import fails;
#   5. .carry/fa3.tgz: build-fa3/fa and .carry/fa3, with the JSON and CLI11 headers the runtime
#      needs there.
set -euo pipefail
cd "$(dirname "$0")/../.."
fa_git=${1:-/work/.mirror/Dao-AILab+flash-attention/repo}
cutlass_git=${2:-/work/.mirror/NVIDIA+cutlass/repo}
tool=$(realpath "${3:-build/bin/trace-rewrite}")
read -r _ fa_commit < <(sed -n 1p bench/fa3/COMMIT)
read -r _ cutlass_commit < <(sed -n 2p bench/fa3/COMMIT)
source bench/fa3/switches.sh
W=build-fa3/fa C=.carry/fa3
rm -rf build-fa3 "$C" "$C.tgz" && mkdir -p "$W/csrc/cutlass" "$C/prefix/include"
git --git-dir="$fa_git" archive "$fa_commit" hopper | tar -x -C "$W"
git --git-dir="$cutlass_git" archive "$cutlass_commit" include | tar -x -C "$W/csrc/cutlass"
echo "$fa_commit" >"$W/hopper/PINNED_COMMIT"
# setup.py reads the repository's README.md as its long description
git --git-dir="$fa_git" show "$fa_commit:README.md" >"$W/README.md"
flags=(-std=c++17 -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DCUTLASS_ENABLE_GDC_FOR_SM90
       -DCUTLASS_DEBUG_TRACE_LEVEL=0 -DNDEBUG "${FA3_DEFINES[@]}")
for p in roles sample; do
  python3 bench/fa3/annotate.py "$W/hopper" "$W/hopper_$p" --placement=$p >"$C/annotated_$p.txt"
  while read -r f; do
    "$tool" "$f" -o "$C/stripped.tmp"
    cmp -s "$C/stripped.tmp" "$W/hopper/$(basename "$f")" || { echo "strip of $f DIFFERS"; exit 1; }
    echo "strip exact: $f"
  done <"$C/annotated_$p.txt"
  mkdir -p "$C/$p/traced"
  for cu in "${FA3_CUDA_SOURCES[@]}"; do
    start=$(date +%s.%N)
    "$tool" --traced --cuda-gpu-arch=sm_90a --max-events=4096 "$W/hopper_$p/$cu" -o "$C/$p/traced/$(basename "$cu")" -- "${flags[@]}" \
      -I"$W/hopper_$p" -I"$W/csrc/cutlass/include" -Iruntime/include 2>&1 | tee -a "$C/rewrite.txt"
    echo "$p $cu: traced in $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$C/rewrite.txt"
  done
done
rm -f "$C/stripped.tmp"
debs=$(mktemp -d)
if (cd "$debs" && apt-get download python3-pytest python3-pluggy python3-iniconfig python3-py \
      python3-packaging python3-attr >/dev/null 2>&1); then
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$debs/x"; done
  mkdir -p "$C/pylib_pytest" && cp -r "$debs/x/usr/lib/python3/dist-packages/." "$C/pylib_pytest/"
else
  echo "warning: no pytest packages (apt-get download failed); the GPU machine must have pytest" >&2
fi
rm -rf "$debs"
einops_git=${EINOPS_GIT_DIR:-/work/.mirror/arogozhnikov+einops/repo}
if [[ -d $einops_git ]]; then
  mkdir -p "$C/pylib_einops" && git --git-dir="$einops_git" archive HEAD einops | tar -x -C "$C/pylib_einops"
else
  echo "warning: no einops ($einops_git); the GPU machine must have einops" >&2
fi
cp -r /usr/include/nlohmann /usr/include/CLI "$C/prefix/include/"
tar -czf "$C.tgz" build-fa3/fa "$C"
du -sh "$C.tgz"
