#include "outputs.h"

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

std::string free_stem(const std::string &dir, const std::string &kernel,
                      const std::vector<std::unique_ptr<LaunchOutput>> &outputs) {
  const std::string base = (fs::path(dir) / plain_file_name(kernel, "kernel")).string();
  for (unsigned n = 0;; ++n) {
    const std::string stem = n == 0 ? base : base + "_" + std::to_string(n);
    bool taken = false;
    for (const auto &out : outputs) {
      std::error_code ec; // an entry that cannot be checked fails at the write, with its reason
      taken = taken || fs::exists(stem + out->extension(), ec);
    }
    if (!taken)
      return stem;
  }
}

} // namespace

std::string plain_file_name(const std::string &name, const char *fallback) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out.empty() ? fallback : out;
}

uint64_t megabytes_from_env(const char *name, uint64_t fallback_mb, bool zero_ok) {
  const char *v = std::getenv(name);
  if (v == nullptr || *v == '\0')
    return fallback_mb << 20;
  char *end = nullptr;
  const unsigned long long mb = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || (mb == 0 && !zero_ok) || mb > (1ull << 40)) {
    std::fprintf(stderr, "cutrace: %s=\"%s\" is not a size in MB; using %llu\n", name, v,
                 (unsigned long long)fallback_mb);
    return fallback_mb << 20;
  }
  return uint64_t(mb) << 20;
}

OutputFormats output_formats(const std::string &formats, bool raw) {
  OutputFormats chosen;
  chosen.ctrace = raw;
  size_t at = 0;
  while (at <= formats.size()) {
    size_t comma = formats.find(',', at);
    if (comma == std::string::npos)
      comma = formats.size();
    std::string name = formats.substr(at, comma - at);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name == "html")
      chosen.html = true;
    else if (name == "perfetto")
      chosen.perfetto = true;
    else if (name == "ctrace")
      chosen.ctrace = true;
    else if (name == "json")
      chosen.json = true;
    else if (!name.empty())
      std::fprintf(stderr,
                   "cutrace: CUTRACE_FORMAT: unknown format \"%s\" ignored "
                   "(known: html, perfetto, ctrace, json)\n",
                   name.c_str());
    at = comma + 1;
  }
  return chosen;
}

OutputFormats default_output_formats() {
  const char *formats = std::getenv("CUTRACE_FORMAT");
  const char *raw = std::getenv("CUTRACE_RAW");
  const bool chosen = formats != nullptr && *formats != '\0';
  OutputFormats out = output_formats(chosen ? formats : kDefaultFormats,
                                     raw != nullptr && std::strcmp(raw, "1") == 0);
  out.chosen = chosen;
  return out;
}

std::unique_ptr<LaunchOutput> ctrace_output() { return std::make_unique<RawOutput>(); }

void write_output_files(const std::string &dir, const std::string &kernel,
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
    std::optional<std::string> contents;
    try { // one format failing (out of memory, say) must not lose the others
      contents = out->render(launch);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "cutrace: %s%s not written: %s\n", stem.c_str(),
                   out->extension().c_str(), e.what());
      continue;
    }
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
