// What fuzz_ctrace and fuzz_decode_map check on every decoded trace: slices never end before they
// begin, the references the decoder hands to the exporters point at real rows and slices, and
// arrows land inside their destination (cutrace/decode.h). A violation aborts, so libFuzzer keeps
// the input.
#ifndef CUTRACE_FUZZ_TRACE_CHECKS_H
#define CUTRACE_FUZZ_TRACE_CHECKS_H

#include <cutrace/decode.h>

#include <cstdio>
#include <cstdlib>

namespace cutrace::fuzz {

[[noreturn]] inline void violated(const char *Target, const char *Property) {
  std::fprintf(stderr, "%s: property violated: %s\n", Target, Property);
  std::abort();
}

inline void check_trace(const char *Target, const Trace &trace) {
  for (const Row &row : trace.rows)
    for (const Slice &s : row.slices)
      if (s.end_cycles < s.begin_cycles || !(s.end_ns >= s.begin_ns))
        violated(Target, "a slice never ends before it begins");
  for (const Flow &f : trace.flows) {
    if (f.src.row >= trace.rows.size() || f.dst.row >= trace.rows.size() ||
        f.src.slice >= trace.rows[f.src.row].slices.size() ||
        f.dst.slice >= trace.rows[f.dst.row].slices.size())
      violated(Target, "flows refer to existing slices");
    const Slice &dst = trace.rows[f.dst.row].slices[f.dst.slice];
    if (f.at_cycles < dst.begin_cycles || f.at_cycles > dst.end_cycles)
      violated(Target, "a flow lands inside its destination slice");
  }
}

} // namespace cutrace::fuzz

#endif
