# Sourced by bench/cutlass/gpu_sweep.sh and gpu_rows.sh on the GPU machine, from the repository
# root, with C (the unpacked .carry/sweep), W (build-cutlass/sweep), R (the run's build folder),
# O (its results folder) and `placements` set: unpacks .carry/sweep.tgz when needed, lays out
# CUTLASS as published in $R/plain and each placement's annotated tree in $W/ann_<placement>,
# builds the runtime with g++ ($R/rt) and sweep_rows ($R/bin), and sets LIBS for traced links.
# Exits the calling script on a missing carry or a failed build. C and W default to the paths
# the scripts use.
: "${C:=$PWD/.carry/sweep}" "${W:=$PWD/build-cutlass/sweep}"
[[ -f $C/configs.txt || ! -f $C.tgz ]] || tar -xzf "$C.tgz"
[[ -f $C/configs.txt ]] || { echo "no $C: run bench/cutlass/sweep.py here first"; exit 2; }
rm -rf "$R" && mkdir -p "$R/logs" "$R/bin" "$R/runs" "$R/plain" "$O"
tar -xzf "$C/cutlass.tgz" -C "$R/plain"
mkdir -p "$W/util" && tar -xzf "$C/cutlass.tgz" -C "$W/util" --strip-components=2 tools/util/include
for p in $placements; do
  rm -rf "$W/ann_$p" && mkdir -p "$W/ann_$p" && tar -xzf "$C/cutlass.tgz" -C "$W/ann_$p" include
  cp -r "$C/overlay_$p/include/." "$W/ann_$p/include/"
done
bash test/device/build_runtime_gpp.sh "$R/rt" "$R/logs/runtime.txt" -I"$C/json" || exit 1
g++ -std=c++17 -O2 -Iruntime/include -I"$C/json" bench/cutlass/sweep_rows.cpp "$R/rt/libcutrace_analysis.a" \
  "$R/rt/libcutrace_format.a" -lpthread -o "$R/bin/sweep_rows" || exit 1
LIBS=("$R/rt/libcutrace.a" "$R/rt/libcutrace_analysis.a" "$R/rt/libcutrace_format.a" -lpthread -lcuda)
