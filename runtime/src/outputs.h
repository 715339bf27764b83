// What the automatic mode writes for each recorded launch. One LaunchOutput per file kind, so
// exports (HTML, Perfetto) plug in by adding a class to default_outputs().
#ifndef CUTRACE_SRC_OUTPUTS_H
#define CUTRACE_SRC_OUTPUTS_H

#include <cutrace/ctrace.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

struct DecodedLaunch {
  const Ctrace &raw;
  const DecodeMap *map; // null when the map JSON could not be parsed
  const Trace *trace;   // null likewise
};

class LaunchOutput {
public:
  virtual ~LaunchOutput() = default;
  virtual std::string extension() const = 0; // with the dot: ".json"
  // The file's contents, or nullopt when this output has nothing to say about the launch.
  virtual std::optional<std::string> render(const DecodedLaunch &launch) const = 0;
};

// `.ctrace` when CUTRACE_RAW=1 in the environment; `.json` always.
std::vector<std::unique_ptr<LaunchOutput>> default_outputs();

// Writes every output under one fresh stem `<dir>/<kernel>[_N]`, never replacing a file.
// Prints one stderr line per file written or failed.
void write_launch_outputs(const std::string &dir, const std::string &kernel,
                          const DecodedLaunch &launch,
                          const std::vector<std::unique_ptr<LaunchOutput>> &outputs);

} // namespace cutrace

#endif // CUTRACE_SRC_OUTPUTS_H
