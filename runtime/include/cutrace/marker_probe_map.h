// The marker probe's shape (cutrace/marker_probe.h), shared by the device code that records it,
// the runtime that launches it and the decoder that reads it (docs/FORMAT.md, "Marker cost").
#ifndef CUTRACE_MARKER_PROBE_MAP_H
#define CUTRACE_MARKER_PROBE_MAP_H

#include <cstdint>

namespace cutrace {
namespace detail {

constexpr int kMarkerProbeReps = 32;          // of each shape
constexpr int kMarkerProbeChainHalf = 32;     // FMAs in each half of a chain shape
constexpr int kMarkerProbeParts = 4;          // inner ranges of the chain_around_ranges shape
constexpr uint32_t kMarkerProbeEvents = 1152; // the row's capacity: 32 x 34 slots fit
constexpr uint32_t kMarkerProbeThreads = 32;  // one warp; thread 0 records

// Sites: 0 a range with nothing inside; 1 a range around one instant (2); 3 a range around an
// empty range (4); 5 an explicit start and end with nothing between; 6 a range around a dependent
// chain of FMAs; 7 a range around the same chain with an instant (8) halfway; 9 a range around a
// chain four times as long (long_chain); 10 a range around the same chain cut in
// kMarkerProbeParts parts, each in its own range (11); 12 a range around the same parts with an
// instant (13) after each. The map's max_events is the least a probe row holds: probes recorded
// before sites 9-13 existed had rows of 640.
constexpr const char *kMarkerProbeMapJson =
    R"({"format_version":1,"kernel":"cutrace_marker_probe","source":"cutrace/marker_probe.h",)"
    R"("max_events":640,"clock":"clock64","groups":[{"index":0,"name":"probe","lead":"0"}],)"
    R"("lanes":["main","inner"],"sites":[)"
    R"({"id":0,"kind":"range","name":"empty","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":1,"kind":"range","name":"around_instant","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":2,"kind":"record","name":"instant","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":3,"kind":"range","name":"outer","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":4,"kind":"range","name":"inner","lane":1,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":5,"kind":"range_start","name":"explicit","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":6,"kind":"range","name":"chain","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":7,"kind":"range","name":"chain_around_instant","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":8,"kind":"record","name":"chain_instant","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":9,"kind":"range","name":"long_chain","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":10,"kind":"range","name":"chain_around_ranges","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":11,"kind":"range","name":"chain_part","lane":1,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":12,"kind":"range","name":"chain_around_marks","lane":0,"group":0,"loc":"marker_probe.h"},)"
    R"({"id":13,"kind":"record","name":"chain_mark","lane":0,"group":0,"loc":"marker_probe.h"}],)"
    R"("flows":[]})";

} // namespace detail
} // namespace cutrace

#endif // CUTRACE_MARKER_PROBE_MAP_H
