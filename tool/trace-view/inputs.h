// What every trace-view command shares: reading an input, choosing and decoding one launch of it,
// checking option values (parsing them: command_line.h; writing outputs: outputs.h). The CLI
// turns each failure into its exit status here (docs/cli.md): 2 for bad usage or an input that
// cannot be read or decoded.
#ifndef CUTRACE_TRACE_VIEW_INPUTS_H
#define CUTRACE_TRACE_VIEW_INPUTS_H

#include <cutrace/ctrace.h>
#include <cutrace/decode.h>
#include <cutrace/run_trace.h>

#include <cstdint>
#include <optional>
#include <string>

namespace trace_view {

// "trace-view: error: WHY (see --help)", exit 2.
[[noreturn]] void usage_error(const std::string &why);
// "trace-view: error: WHY", exit 2.
[[noreturn]] void input_error(const std::string &why);

// A decimal count no larger than `max`, else a usage error: "WHAT, got 'V'".
uint64_t count_value(const std::string &v, uint64_t max, const std::string &what);
// --clock-ghz's value: a positive rate up to 100 GHz, else a usage error.
double ghz_value(const std::string &v);

// The run in `path`, or exit 2 with the reader's reason.
cutrace::Run read_input(const std::string &path, const cutrace::RunReadOptions &options = {});
// "3 launches, sequence numbers 0 to 2"
std::string launches_held(const cutrace::Run &run);
// One launch of `run` (its only one, or the one with sequence number `sequence`), decoded alone;
// exit 2 when there is no such launch or it cannot be decoded. A run read without records
// (RunReadOptions) has the chosen launch's records read back from `path`, so choosing one launch
// of a large run costs the memory of that launch.
cutrace::RunTrace decode_one_launch(cutrace::Run run, const std::string &path,
                                    std::optional<uint64_t> sequence,
                                    const cutrace::DecodeOptions &options);

// One decoded launch and the map that decodes it.
struct LoadedLaunch {
  std::string path;
  uint64_t sequence = 0;
  cutrace::DecodeMap map;
  cutrace::Trace trace;
};
// The launch of `path` a command analyses: its only launch, or launch `sequence` (`flag` names the
// option that chooses it, for the message when a file of several launches gives none). Decode
// problems in a readable launch are a warning on stderr; a launch with no row is an error.
LoadedLaunch load_launch(const std::string &path, std::optional<uint64_t> sequence,
                         const cutrace::DecodeOptions &options, const std::string &flag);

} // namespace trace_view

#endif
