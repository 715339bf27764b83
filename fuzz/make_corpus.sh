#!/usr/bin/env bash
# Assembles the seed corpora of the fuzz targets from the test inputs and the recorded traces:
#   fuzz/make_corpus.sh OUT   ->  OUT/{strip,traced,decode_map,ctrace}/
# Seeds are generated, not committed: every .cu under test/inputs (strip; traced takes the
# traced sources and the realistic kernels), the decode-map JSON of each .ctrace under test/data (decode_map), and the
# .ctrace files small enough to mutate quickly (ctrace).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: make_corpus.sh OUT}
mkdir -p "$out"/{strip,traced,decode_map,ctrace}

for f in $(find "$root/test/inputs" -name '*.cu' | sort); do
  name=$(basename "$(dirname "$f")")_$(basename "$f")
  cp "$f" "$out/strip/$name"
  # Each traced input costs a Clang parse: the traced sources and the realistic kernels only.
  case "$f" in
  *.traced.cu | *.plain.cu) ;;
  */traced/* | */strip/real_*) cp "$f" "$out/traced/$name" ;;
  esac
done

# The MAP sections of a .ctrace (docs/FORMAT.md, ".ctrace container" and "Runs") are decode maps;
# a run file's section count is 0xFFFFFFFF, "to the end of the file".
python3 - "$root/test/data" "$out" <<'PY'
import os, pathlib, struct, sys
data, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in sorted(data.rglob("*.ctrace")):
    b = f.read_bytes()
    sections, at, maps = struct.unpack_from("<I", b, 12)[0], 16, 0
    while sections > 0 and at + 16 <= len(b):
        tag, _flags, length = struct.unpack_from("<4sIQ", b, at)
        at += 16
        if tag == b"MAP ":
            name = f.stem + (f"_{maps}" if maps else "") + ".json"
            (out / "decode_map" / name).write_bytes(b[at:at + length])
            maps += 1
        at += length
        sections -= 1
    if len(b) <= 64 * 1024:
        (out / "ctrace" / f.name).write_bytes(b)
PY
echo "seeds: $(for d in strip traced decode_map ctrace; do printf '%s %s  ' "$d" "$(ls "$out/$d" | wc -l)"; done)"
