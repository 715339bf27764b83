// The automatic mode's outputs in library `cutrace`: the launch is decoded once and every
// format asked for is rendered from that one decoded model by the analysis exporters.
#include "../outputs.h"

#include <cutrace/export.h>

#include <cstdio>

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

} // namespace cutrace
