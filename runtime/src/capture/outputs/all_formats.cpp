// The automatic mode's outputs in library `cutrace`: the launch is decoded once and every
// format asked for is rendered from that one decoded model by the analysis exporters.
#include "../detached.h"
#include "../outputs.h"

#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

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

namespace {

struct RunRender {
  bool wanted;
  const char *extension;
  std::string (*render)(const RunTrace &);
};

// The run's formats, the quick ones first: the JSON is ready before the page is.
std::vector<RunRender> run_renders(const OutputFormats &formats) {
  std::vector<RunRender> out = {
      {formats.json, ".json", run_summary_json},
      {formats.html, ".html", [](const RunTrace &r) { return export_run_html(r); }},
      {formats.perfetto, ".perfetto.json", export_run_perfetto},
  };
  out.erase(std::remove_if(out.begin(), out.end(), [](const RunRender &r) { return !r.wanted; }),
            out.end());
  return out;
}

std::string stem_of(const std::string &run_path) {
  return run_path.substr(0, run_path.size() - std::string(".ctrace").size());
}

std::string file_name(const std::string &path) {
  return std::filesystem::path(path).filename().string();
}

std::string html_escape(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// What `<stem>.html` shows while the run is being rendered: it reloads itself until the page
// replaces it, and says how to render the run should the renderer have been stopped.
std::string placeholder_page(const std::string &run_path) {
  const std::string run = html_escape(file_name(run_path));
  const std::string page = html_escape(file_name(stem_of(run_path) + ".html"));
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" "
         "content=\"1\"><title>cutrace: rendering " +
         run +
         "</title></head>\n<body style=\"font-family:sans-serif\"><p>cutrace is rendering "
         "<code>" +
         run +
         "</code> into this page in the background; it reloads itself every second until "
         "the timeline is here.</p>\n<p>If it stays, the renderer was stopped. The run "
         "file holds every recorded launch: <code>trace-view " +
         run + " --html " + page + "</code> renders it.</p></body></html>\n";
}

// Decodes the run (bounded by CUTRACE_RENDER_MB) and writes each format. `replace_page`: the
// HTML replaces the placeholder written for it.
void render_run(const std::string &run_path, const OutputFormats &formats, bool replace_page) {
  // Rendering must not cost memory in proportion to the run: the records of the first
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
  for (const RunRender &r : run_renders(formats)) {
    const std::string path = stem_of(run_path) + r.extension;
    const bool html = std::string(r.extension) == ".html";
    try { // one format failing (out of memory, say) must not lose the others
      if (std::optional<std::string> err =
              write_file_atomic(path, r.render(*decoded),
                                html && replace_page ? Overwrite::replace : Overwrite::never))
        std::fprintf(stderr, "cutrace: %s\n", err->c_str());
      else
        std::fprintf(stderr, "cutrace: wrote %s\n", path.c_str());
    } catch (const std::exception &e) {
      std::fprintf(stderr, "cutrace: %s not written: %s\n", path.c_str(), e.what());
    }
  }
}

} // namespace

std::optional<int> detail::write_run_outputs(const std::string &run_path,
                                             const OutputFormats &formats, bool in_background) {
  if (!formats.needs_exporters())
    return std::nullopt;
  if (!in_background) {
    render_run(run_path, formats, false);
    return std::nullopt;
  }
  // The page's name is taken now, by a placeholder, never replacing a file that is there; the
  // renderer replaces only its own placeholder.
  const std::string page = stem_of(run_path) + ".html";
  const bool placeholder =
      formats.html && !write_file_atomic(page, placeholder_page(run_path), Overwrite::never);
  const std::optional<pid_t> renderer =
      run_detached([&] { render_run(run_path, formats, placeholder); });
  if (!renderer) { // no process to be had: render here, as CUTRACE_RENDER=exit does
    std::fprintf(stderr, "cutrace: no process for rendering in the background; rendering now\n");
    render_run(run_path, formats, placeholder);
    return std::nullopt;
  }
  std::string names; // what the renderer will write: never the page when its name was taken
  for (const RunRender &r : run_renders(formats))
    if (std::string(r.extension) != ".html" || placeholder)
      names += std::string(names.empty() ? "" : " and ") + stem_of(run_path) + r.extension;
  if (formats.html && !placeholder)
    std::fprintf(stderr, "cutrace: %s is there already: the page is not written\n", page.c_str());
  std::fprintf(stderr,
               "cutrace: %s will be written by process %d, in the background: ready when it "
               "ends%s (CUTRACE_RENDER=exit renders before the program ends)\n",
               names.c_str(), int(*renderer),
               placeholder ? "; the page reloads itself until then" : "");
  return int(*renderer);
}

} // namespace cutrace
