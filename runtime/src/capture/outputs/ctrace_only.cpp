// The automatic mode's outputs in library `cutrace_capture`: the raw `.ctrace` only, so a
// capture-only program never links the decoder's exporters (render it later with trace-view).
#include "../outputs.h"

#include <atomic>
#include <cstdio>

namespace cutrace::detail {

namespace {
void warn_once(const OutputFormats &formats) {
  static std::atomic<bool> warned{false};
  if (formats.chosen && formats.needs_exporters() && !warned.exchange(true))
    std::fprintf(stderr, "cutrace: CUTRACE_FORMAT asks for formats this program cannot write (it "
                         "links cutrace::capture; link cutrace::cutrace for them, or render the "
                         ".ctrace with trace-view)\n");
}
} // namespace

std::optional<int> write_run_outputs(const std::string &, const OutputFormats &formats, bool) {
  warn_once(formats);
  return std::nullopt;
}

void write_launch_outputs(const std::string &dir, const std::string &kernel, const Ctrace &raw,
                          const OutputFormats &formats) {
  warn_once(formats);
  std::vector<std::unique_ptr<LaunchOutput>> outputs;
  outputs.push_back(ctrace_output());
  write_output_files(dir, kernel, {raw, nullptr, nullptr}, outputs);
}

} // namespace cutrace::detail
