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

// What $CUTRACE_FORMAT selects when it is unset or empty. SPEC §5: `<kernel>.html` and `.json`.
inline constexpr const char *kDefaultFormats = "html,json";

// The outputs named in a comma-separated list of `html` (`.html`), `perfetto`
// (`.perfetto.json`), `ctrace` (`.ctrace`), `json` (`.json`, the decoded launch); `raw` adds
// `ctrace`. Unknown names are reported on stderr and ignored.
std::vector<std::unique_ptr<LaunchOutput>> outputs_for(const std::string &formats, bool raw);

// outputs_for($CUTRACE_FORMAT, default kDefaultFormats; CUTRACE_RAW=1 adds the raw dump).
std::vector<std::unique_ptr<LaunchOutput>> default_outputs();

// Writes every output under one fresh stem `<dir>/<kernel>[_N]`, never replacing a file.
// Prints one stderr line per file written or failed.
void write_launch_outputs(const std::string &dir, const std::string &kernel,
                          const DecodedLaunch &launch,
                          const std::vector<std::unique_ptr<LaunchOutput>> &outputs);

} // namespace cutrace

#endif // CUTRACE_SRC_OUTPUTS_H
