// The automatic mode's outputs in library `cutrace`: the launch is decoded once and every
// format asked for is rendered from that one decoded model by the analysis exporters.
#include "../outputs.h"

#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <cstdio>
#include <cstdlib>

namespace cutrace {

namespace {

/// One exporter's format: its file extension and how it renders the decoded launch.
class ExportedOutput : public LaunchOutput {
public:
  using Render = std::string (*)(const DecodeMap &, const Trace &);
  ExportedOutput(std::string extension, Render render)
      : extension_(std::move(extension)), render_(render) {}
  std::string extension() const override { return extension_; }
  std::optional<std::string> render(const DecodedLaunch &launch) const override {
    if (launch.map == nullptr || launch.trace == nullptr)
      return std::nullopt;
    return render_(*launch.map, *launch.trace);
  }

private:
  std::string extension_;
  Render render_;
};

} // namespace

void detail::write_launch_outputs(const std::string &dir, const std::string &kernel,
                                  const Ctrace &raw, const OutputFormats &formats) {
  // Fixed order, whatever the order in the variable: the raw dump first, it needs no decoding.
  std::vector<std::unique_ptr<LaunchOutput>> outputs;
  if (formats.ctrace)
    outputs.push_back(ctrace_output());
  if (formats.json)
    outputs.push_back(std::make_unique<ExportedOutput>(".json", trace_summary_json));
  if (formats.html)
    outputs.push_back(std::make_unique<ExportedOutput>(
        ".html", [](const DecodeMap &m, const Trace &t) { return export_html(m, t); }));
  if (formats.perfetto)
    outputs.push_back(std::make_unique<ExportedOutput>(".perfetto.json", export_perfetto));

  Expected<DecodeMap> map = parse_decode_map(raw.map_json);
  if (!map)
    std::fprintf(stderr, "cutrace: %s: %s\n", kernel.c_str(), map.error.c_str());
  std::optional<Trace> trace;
  if (map)
    trace = decode(*map, raw.buffer.data(), raw.buffer.size());
  write_output_files(dir, kernel, {raw, map ? &*map : nullptr, trace ? &*trace : nullptr}, outputs);
}

void detail::write_run_outputs(const std::string &run_path, const OutputFormats &formats) {
  if (!formats.needs_exporters())
    return;
  // Rendering at exit must not cost memory in proportion to the run: the records of the first
  // $CUTRACE_RENDER_MB (default 8) of launches are decoded, every later launch is drawn from
  // its extent alone (trace-view renders any of them in full afterwards).
  RunReadOptions read;
  read.max_buffer_bytes = megabytes_from_env("CUTRACE_RENDER_MB", 8);
  Expected<Run> run = read_run_file(run_path, read);
  if (!run) {
    std::fprintf(stderr, "cutrace: %s\n", run.error.c_str());
    return;
  }
  Expected<RunTrace> decoded = decode_run(*run, run_path);
  if (!decoded) {
    std::fprintf(stderr, "cutrace: %s: %s\n", run_path.c_str(), decoded.error.c_str());
    return;
  }
  const std::string stem = run_path.substr(0, run_path.size() - std::string(".ctrace").size());
  struct Render {
    bool wanted;
    const char *extension;
    std::string (*render)(const RunTrace &);
  };
  const Render renders[] = {
      {formats.html, ".html", [](const RunTrace &r) { return export_run_html(r); }},
      {formats.json, ".json", run_summary_json},
      {formats.perfetto, ".perfetto.json", export_run_perfetto},
  };
  for (const Render &r : renders) {
    if (!r.wanted)
      continue;
    const std::string path = stem + r.extension;
    try { // one format failing (out of memory, say) must not lose the others
      if (std::optional<std::string> err =
              write_file_atomic(path, r.render(*decoded), Overwrite::never))
        std::fprintf(stderr, "cutrace: %s\n", err->c_str());
      else
        std::fprintf(stderr, "cutrace: wrote %s\n", path.c_str());
    } catch (const std::exception &e) {
      std::fprintf(stderr, "cutrace: %s not written: %s\n", path.c_str(), e.what());
    }
  }
}

} // namespace cutrace
