// libFuzzer target: the `.ctrace` container readers (single launch and run) and the decoders
// behind them (runtime/src/format/ctrace.cpp, run.cpp, runtime/src/analysis/decode*.cpp,
// records.cpp, run_decode.cpp) on any bytes, both record layouts (the buffer header's version
// picks 16-byte or 8-byte records; the seeds under test/data hold both). Damaged input is
// an error value or a listed problem, never a crash (docs/design.md, "Decode contract"). The
// exporters are left to fuzz_decode_map: rendering costs ten times the decode per input.
#include "trace_checks.h"

#include <cutrace/ctrace.h>
#include <cutrace/run_trace.h>

#include <cstdint>

using namespace cutrace;

namespace {

// A run (version 2, or version 1 as a run of one): it decodes onto one axis without a crash, and
// what the reader accepted, written again, reads back with as many launches.
void check_run(const uint8_t *data, size_t size) {
  Expected<Run> run = parse_run(data, size);
  if (!run)
    return;
  if (!run->run_json.empty()) {
    const std::vector<uint8_t> encoded = encode_run(*run);
    Expected<Run> again = parse_run(encoded.data(), encoded.size());
    if (!again || again->launches.size() != run->launches.size() || again->maps != run->maps)
      fuzz::violated("fuzz_ctrace", "encode_run(parse_run(x)) reads back the same launches");
  }
  // Each accepted launch, delta-coded (CUTRACE_COMPRESS=delta), reads back byte for byte.
  for (size_t i = 0; i < run->launches.size() && i < 4; ++i) {
    Run one;
    one.run_json = "{}";
    one.maps = run->maps;
    std::vector<uint8_t> bytes = encode_run(one);
    const std::vector<uint8_t> coded = encode_launch_section(run->launches[i], LaunchCoding::delta);
    bytes.insert(bytes.end(), coded.begin(), coded.end());
    Expected<Run> back = parse_run(bytes.data(), bytes.size());
    if (!back || back->launches.size() != 1 || back->launches[0].buffer != run->launches[i].buffer)
      fuzz::violated("fuzz_ctrace", "a delta-coded launch reads back byte for byte");
  }
  Expected<RunTrace> decoded = decode_run(*run);
  if (decoded)
    for (const RunLaunch &l : decoded->launches)
      fuzz::check_trace("fuzz_ctrace", l.trace);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  check_run(Data, Size);
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
