// trace-view: reads a raw dump (.ctrace) and writes the HTML timeline, Chrome Trace Event JSON
// for Perfetto, or a summary table (docs/viewer.md). Argument parsing, exit codes and wiring only;
// the work is in cutrace_analysis. The launch is decoded once; every output reads that model.
//
// Exit status: 0 done; 1 an output could not be written; 2 bad usage, or an input that cannot be
// read or decoded at all. Decode problems in a readable file are warnings (the exports show them).
#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#ifndef CUTRACE_VERSION
#define CUTRACE_VERSION "unknown"
#endif

namespace {

const char *kUsage =
    R"(usage: trace-view FILE.ctrace [--html OUT] [--perfetto OUT] [--summary] [--cta N]
                  [--clock-ghz F]

Reads one launch's raw trace (.ctrace: the device buffer with its decode map) and writes:
  --html OUT        self-contained HTML timeline (tabs per CTA, grid view by SM; no network)
  --perfetto OUT    Chrome Trace Event JSON: open in https://ui.perfetto.dev or chrome://tracing
  --summary         per event name, group and SM statistics, printed to stdout
                    (the default when no output is named)
  --cta N           only CTA N (linear index: x + y*gridDim.x + z*gridDim.x*gridDim.y); the HTML
                    opens on it
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
  --help, --version
OUT may be '-' for stdout. Files are written atomically (temporary file, then rename).
Exit status: 0 done, 1 an output could not be written, 2 bad usage or unreadable/corrupt input.
)";

struct Args {
  std::string input;
  std::optional<std::string> html, perfetto;
  bool summary = false;
  std::optional<uint32_t> cta;
  std::optional<double> ghz;
};

[[noreturn]] void usage_error(const std::string &why) {
  std::fprintf(stderr, "trace-view: error: %s (see --help)\n", why.c_str());
  std::exit(2);
}

// "--opt VALUE" or "--opt=VALUE".
std::optional<std::string> option_value(int argc, char **argv, int &i, const char *name) {
  const size_t n = std::strlen(name);
  if (std::strncmp(argv[i], name, n) != 0)
    return std::nullopt;
  if (argv[i][n] == '=')
    return std::string(argv[i] + n + 1);
  if (argv[i][n] != '\0')
    return std::nullopt;
  if (i + 1 >= argc)
    usage_error(std::string(name) + " needs a value");
  return std::string(argv[++i]);
}

Args parse_args(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg == "--version") {
      std::printf("trace-view %s (trace format %u)\n", CUTRACE_VERSION, cutrace::kFormatVersion);
      std::exit(0);
    }
    if (arg == "--summary") {
      a.summary = true;
    } else if (auto v = option_value(argc, argv, i, "--html")) {
      a.html = *v;
    } else if (auto v = option_value(argc, argv, i, "--perfetto")) {
      a.perfetto = *v;
    } else if (auto v = option_value(argc, argv, i, "--cta")) {
      char *end = nullptr;
      errno = 0;
      const unsigned long n = std::strtoul(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno || n > UINT32_MAX || (*v)[0] == '-')
        usage_error("--cta wants a CTA index, got '" + *v + "'");
      a.cta = uint32_t(n);
    } else if (auto v = option_value(argc, argv, i, "--clock-ghz")) {
      char *end = nullptr;
      const double f = std::strtod(v->c_str(), &end);
      if (v->empty() || *end != '\0' || !std::isfinite(f) || f <= 0 || f > 100)
        usage_error("--clock-ghz wants a positive rate in GHz, got '" + *v + "'");
      a.ghz = f;
    } else if (arg.size() > 1 && arg[0] == '-') {
      usage_error("unknown option '" + arg + "'");
    } else if (a.input.empty()) {
      a.input = arg;
    } else {
      usage_error("one input file only, got '" + a.input + "' and '" + arg + "'");
    }
  }
  if (a.input.empty())
    usage_error("no input file");
  if (!a.html && !a.perfetto)
    a.summary = true;
  if (a.html && a.perfetto && *a.html == "-" && *a.perfetto == "-")
    usage_error("--html and --perfetto cannot both go to stdout");
  return a;
}

[[noreturn]] void input_error(const std::string &why) {
  std::fprintf(stderr, "trace-view: error: %s\n", why.c_str());
  std::exit(2);
}

bool write_output(const std::string &path, const std::string &contents) {
  if (path == "-") {
    // A full disk or a closed pipe shows only here: check the write and the flush.
    errno = 0;
    const size_t written = std::fwrite(contents.data(), 1, contents.size(), stdout);
    if (written == contents.size() && std::fflush(stdout) == 0)
      return true;
    std::fprintf(stderr, "trace-view: error: cannot write to stdout: %s\n",
                 std::strerror(errno ? errno : EIO));
    return false;
  }
  if (std::optional<std::string> err = cutrace::write_file_atomic(path, contents)) {
    std::fprintf(stderr, "trace-view: error: %s\n", err->c_str());
    return false;
  }
  std::fprintf(stderr, "trace-view: wrote %s\n", path.c_str());
  return true;
}

int run(int argc, char **argv) {
  const Args args = parse_args(argc, argv);

  cutrace::Expected<cutrace::Ctrace> raw = cutrace::read_ctrace_file(args.input);
  if (!raw)
    input_error(raw.error);
  cutrace::Expected<cutrace::DecodeMap> map = cutrace::parse_decode_map(raw->map_json);
  if (!map)
    input_error(args.input + ": decode map: " + map.error);
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;
  cutrace::Trace trace = cutrace::decode_ctrace(*raw, *map, options);
  if (trace.rows.empty() && !trace.ok())
    input_error(args.input + ": " + trace.problems.front());
  if (!trace.ok())
    std::fprintf(stderr, "trace-view: warning: %s: %zu decode problems, first: %s\n",
                 args.input.c_str(), trace.problems.size(), trace.problems.front().c_str());
  if (args.cta) {
    if (*args.cta >= trace.header.num_ctas())
      input_error(args.input + ": no CTA " + std::to_string(*args.cta) + " (the grid has " +
                  std::to_string(trace.header.num_ctas()) + ")");
    trace = cutrace::restrict_to_cta(trace, *args.cta);
  }

  bool ok = true;
  if (args.html) {
    cutrace::HtmlOptions html;
    html.initial_cta = args.cta;
    ok = write_output(*args.html, cutrace::export_html(*map, trace, html)) && ok;
  }
  if (args.perfetto)
    ok = write_output(*args.perfetto, cutrace::export_perfetto(*map, trace)) && ok;
  if (args.summary)
    ok = write_output("-", cutrace::format_summary(cutrace::summarize(*map, trace))) && ok;
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) { // out of memory on a huge trace, say: a message, not abort
    std::fprintf(stderr, "trace-view: error: %s\n", e.what());
    return 2;
  }
}
