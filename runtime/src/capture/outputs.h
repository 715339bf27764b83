// What the automatic mode writes for each recorded launch. Capture reads $CUTRACE_FORMAT and
// names the files; which formats a program can render depends on the library it links (see
// detail::write_launch_outputs below). One LaunchOutput per file kind.
#ifndef CUTRACE_SRC_CAPTURE_OUTPUTS_H
#define CUTRACE_SRC_CAPTURE_OUTPUTS_H

#include <cutrace/ctrace.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

// What $CUTRACE_FORMAT selects when it is unset or empty: `<kernel>.html` and `.json`
// (docs/guide.md).
inline constexpr const char *kDefaultFormats = "html,json";

struct OutputFormats {
  bool ctrace = false, json = false, html = false, perfetto = false;
  bool chosen = false; // named by $CUTRACE_FORMAT rather than kDefaultFormats
  bool needs_exporters() const { return json || html || perfetto; }
};

// The formats named in a comma-separated list of `html` (`.html`), `perfetto`
// (`.perfetto.json`), `ctrace` (`.ctrace`), `json` (`.json`, the decoded launch); `raw` adds
// `ctrace`. Unknown names are reported on stderr and ignored.
OutputFormats output_formats(const std::string &formats, bool raw);

// output_formats($CUTRACE_FORMAT, default kDefaultFormats; CUTRACE_RAW=1 adds the raw dump).
OutputFormats default_output_formats();

struct DecodedLaunch {
  const Ctrace &raw;
  const DecodeMap *map; // null when not decoded, or the map JSON could not be parsed
  const Trace *trace;   // null likewise
};

class LaunchOutput {
public:
  virtual ~LaunchOutput() = default;
  virtual std::string extension() const = 0; // with the dot: ".json"
  // The file's contents, or nullopt when this output has nothing to say about the launch.
  virtual std::optional<std::string> render(const DecodedLaunch &launch) const = 0;
};

// `name` as a file name: every character but letters, digits, `_` and `-` becomes `_`
// (kernel names may be template-ids, "gemm<128, float>"); `fallback` when nothing is left.
std::string plain_file_name(const std::string &name, const char *fallback);

// The environment variable `name` as a size in MB, returned in bytes; `fallback_mb` when it is
// unset or empty. A value that is not a positive number of MB (or, with `zero_ok`, 0) is said on
// stderr, then ignored.
uint64_t megabytes_from_env(const char *name, uint64_t fallback_mb, bool zero_ok = false);

// The raw dump (`.ctrace`); needs no decoding.
std::unique_ptr<LaunchOutput> ctrace_output();

// Writes every output under one fresh stem `<dir>/<kernel>[_N]`, never replacing a file.
// Prints one stderr line per file written or failed.
void write_output_files(const std::string &dir, const std::string &kernel,
                        const DecodedLaunch &launch,
                        const std::vector<std::unique_ptr<LaunchOutput>> &outputs);

namespace detail {
// Writes what `formats` asks for of one recorded launch. Capture declares it and the library a
// program links defines it, so a capture-only program never links the exporters:
// cutrace_capture writes the `.ctrace` only (outputs/ctrace_only.cpp), cutrace every format
// (outputs/all_formats.cpp).
void write_launch_outputs(const std::string &dir, const std::string &kernel, const Ctrace &raw,
                          const OutputFormats &formats);
// Renders the finished run file `run_path` (`<dir>/<program>.<pid>.ctrace`) into the formats
// asked for, beside it: `<program>.<pid>.html`, `.json`, `.perfetto.json`. `in_background`: by a
// detached process that outlives the program (docs/launches.md, "At exit"); this returns at once,
// having said on stderr where the files will be and when, and returns the renderer's pid.
// Otherwise (CUTRACE_RENDER=exit, or no process could be started) before it returns.
std::optional<int> write_run_outputs(const std::string &run_path, const OutputFormats &formats,
                                     bool in_background);
} // namespace detail

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_OUTPUTS_H
