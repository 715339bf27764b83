// libFuzzer target: the `.ctrace` container reader and the decoder behind it
// (runtime/src/format/ctrace.cpp, runtime/src/analysis/decode*.cpp) on any bytes. Damaged input is
// an error value or a listed problem, never a crash (docs/design.md, "Decode contract"). The
// exporters are left to fuzz_decode_map: rendering costs ten times the decode per input.
#include "trace_checks.h"

#include <cutrace/ctrace.h>

#include <cstdint>

using namespace cutrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Expected<Ctrace> container = parse_ctrace(Data, Size);
  if (!container)
    return 0;
  // What the reader accepted, written again, reads back the same.
  const std::vector<uint8_t> encoded = encode_ctrace(*container);
  Expected<Ctrace> again = parse_ctrace(encoded.data(), encoded.size());
  if (!again || again->map_json != container->map_json || again->buffer != container->buffer ||
      again->launch_index != container->launch_index)
    fuzz::violated("fuzz_ctrace", "encode_ctrace(parse_ctrace(x)) reads back the same");

  Expected<DecodeMap> map = parse_decode_map(container->map_json);
  if (!map)
    return 0;
  const Trace trace = decode_ctrace(*container, *map);
  fuzz::check_trace("fuzz_ctrace", trace);
  return 0;
}
