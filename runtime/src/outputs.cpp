#include "outputs.h"

#include <cutrace/export.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace cutrace {

namespace fs = std::filesystem;

namespace {

class RawOutput : public LaunchOutput {
public:
  std::string extension() const override { return ".ctrace"; }
  std::optional<std::string> render(const DecodedLaunch &launch) const override {
    const std::vector<uint8_t> bytes = encode_ctrace(launch.raw);
    return std::string(bytes.begin(), bytes.end());
  }
};

class JsonSummaryOutput : public LaunchOutput {
public:
  std::string extension() const override { return ".json"; }
  std::optional<std::string> render(const DecodedLaunch &launch) const override {
    if (launch.map == nullptr || launch.trace == nullptr)
      return std::nullopt;
    return trace_summary_json(*launch.map, *launch.trace);
  }
};

class HtmlOutput : public LaunchOutput {
public:
  std::string extension() const override { return ".html"; }
  std::optional<std::string> render(const DecodedLaunch &launch) const override {
    if (launch.map == nullptr || launch.trace == nullptr)
      return std::nullopt;
    return export_html(*launch.map, *launch.trace);
  }
};

class PerfettoOutput : public LaunchOutput {
public:
  std::string extension() const override { return ".perfetto.json"; }
  std::optional<std::string> render(const DecodedLaunch &launch) const override {
    if (launch.map == nullptr || launch.trace == nullptr)
      return std::nullopt;
    return export_perfetto(*launch.map, *launch.trace);
  }
};

// Kernel names may be template-ids ("gemm<128, float>"): keep file names plain.
std::string file_stem(const std::string &kernel) {
  std::string stem;
  for (char c : kernel)
    stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return stem.empty() ? "kernel" : stem;
}

std::string free_stem(const std::string &dir, const std::string &kernel,
                      const std::vector<std::unique_ptr<LaunchOutput>> &outputs) {
  const std::string base = (fs::path(dir) / file_stem(kernel)).string();
  for (unsigned n = 0;; ++n) {
    const std::string stem = n == 0 ? base : base + "_" + std::to_string(n);
    bool taken = false;
    for (const auto &out : outputs)
      taken = taken || fs::exists(stem + out->extension());
    if (!taken)
      return stem;
  }
}

} // namespace

std::vector<std::unique_ptr<LaunchOutput>> outputs_for(const std::string &formats, bool raw) {
  std::vector<std::unique_ptr<LaunchOutput>> outputs;
  bool html = false, perfetto = false, ctrace = raw, json = false;
  size_t at = 0;
  while (at <= formats.size()) {
    size_t comma = formats.find(',', at);
    if (comma == std::string::npos)
      comma = formats.size();
    std::string name = formats.substr(at, comma - at);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name == "html")
      html = true;
    else if (name == "perfetto")
      perfetto = true;
    else if (name == "ctrace")
      ctrace = true;
    else if (name == "json")
      json = true;
    else if (!name.empty())
      std::fprintf(stderr,
                   "cutrace: CUTRACE_FORMAT: unknown format \"%s\" ignored "
                   "(known: html, perfetto, ctrace, json)\n",
                   name.c_str());
    at = comma + 1;
  }
  // Fixed order, whatever the order in the variable: the raw dump first, it needs no decoding.
  if (ctrace)
    outputs.push_back(std::make_unique<RawOutput>());
  if (json)
    outputs.push_back(std::make_unique<JsonSummaryOutput>());
  if (html)
    outputs.push_back(std::make_unique<HtmlOutput>());
  if (perfetto)
    outputs.push_back(std::make_unique<PerfettoOutput>());
  return outputs;
}

std::vector<std::unique_ptr<LaunchOutput>> default_outputs() {
  const char *formats = std::getenv("CUTRACE_FORMAT");
  const char *raw = std::getenv("CUTRACE_RAW");
  return outputs_for(formats != nullptr && *formats != '\0' ? formats : kDefaultFormats,
                     raw != nullptr && std::strcmp(raw, "1") == 0);
}

void write_launch_outputs(const std::string &dir, const std::string &kernel,
                          const DecodedLaunch &launch,
                          const std::vector<std::unique_ptr<LaunchOutput>> &outputs) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "cutrace: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return;
  }
  const std::string stem = free_stem(dir, kernel, outputs);
  const size_t problems = launch.trace ? launch.trace->problems.size() : 0;
  const std::string note =
      problems ? ", " + std::to_string(problems) + " decode problems, see \"problems\"" : "";
  for (const auto &out : outputs) {
    std::optional<std::string> contents = out->render(launch);
    if (!contents)
      continue;
    const std::string path = stem + out->extension();
    if (std::optional<std::string> err = write_file_atomic(path, *contents, Overwrite::never)) {
      std::fprintf(stderr, "cutrace: %s\n", err->c_str());
      continue;
    }
    std::fprintf(stderr, "cutrace: wrote %s (%s, launch %u%s)\n", path.c_str(), kernel.c_str(),
                 launch.raw.launch_index, note.c_str());
  }
}

} // namespace cutrace
