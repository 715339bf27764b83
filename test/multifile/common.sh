# Shared by the multi-file example's checks (sourced): results, cubin comparison and the
# never-annotated copy of examples/multifile. Needs $work (a scratch folder) set by the caller.
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
example=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples/multifile" && pwd)
# The traced twin of every annotated kernel of the example.
has_every_twin() { # <binary>
  local k
  for k in row_sum scale square grid_sum iota saxpy 'block_max_cutrace_traced<256>'; do
    [[ $k == *'<'* ]] || k=${k}_cutrace_traced
    has_symbol "$1" "$k(" || { echo "    no $k in $1"; return 1; }
  done
}


# The project as it would be without cutrace: every file through strip (byte-identical to the
# never-annotated source, docs/strip.md), the library header and the Makefile as they are.
plain_copy() { # <trace-rewrite> <destination>
  local tool=$1 dest=$2 f
  mkdir -p "$dest/third_party"
  for f in kernels.cu main.cu kernels.h tiles.cuh; do
    "$tool" "$example/$f" -o "$dest/$f" || return 1
  done
  cp "$example/third_party/library_launch.h" "$dest/third_party/" &&
    cp "$example/Makefile" "$dest/" &&
    ! grep -qE '(^|[^A-Z_])TRACE_[A-Z_]+\(|cutrace/trace\.h' "$dest"/*.cu "$dest"/*.h "$dest"/*.cuh
}

# Plain nvcc, one sm_90 cubin per source of the never-annotated copy.
plain_cubins() { # <trace-rewrite> <nvcc> <folder>
  plain_copy "$1" "$3" && make -C "$3" -j2 NVCC="$2" BUILD=build cubins >"$work/plain.log" 2>&1 ||
    { cat "$work/plain.log"; return 1; }
}
