// Decoder and exporter throughput on one .ctrace: decode, summary, Perfetto JSON and HTML, each
// timed alone (best of REPS), with output sizes. Prints a markdown table.
//   decode_bench FILE.ctrace [REPS]
#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {

double bestSeconds(int reps, const std::function<size_t()> &step, size_t &bytes) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    bytes = step();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.ctrace [REPS]\n", argv[0]);
    return 2;
  }
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  cutrace::Expected<cutrace::Ctrace> file = cutrace::read_ctrace_file(argv[1]);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.error.c_str());
    return 2;
  }
  cutrace::Expected<cutrace::DecodeMap> map = cutrace::parse_decode_map(file->map_json);
  if (!map) {
    std::fprintf(stderr, "%s\n", map.error.c_str());
    return 2;
  }
  cutrace::Trace trace;
  size_t bytes = 0;
  const double decode = bestSeconds(
      reps,
      [&] {
        trace = cutrace::decode(*map, file->buffer.data(), file->buffer.size());
        return size_t(0);
      },
      bytes);
  size_t events = 0;
  for (const cutrace::Row &row : trace.rows)
    events += row.slices.size() * 2 + row.instants.size();
  size_t summaryBytes, perfettoBytes, htmlBytes;
  const double summary = bestSeconds(
      reps, [&] { return cutrace::format_summary(cutrace::summarize(*map, trace)).size(); },
      summaryBytes);
  const double perfetto = bestSeconds(
      reps, [&] { return cutrace::export_perfetto(*map, trace).size(); }, perfettoBytes);
  const double html = bestSeconds(
      reps, [&] { return cutrace::export_html(*map, trace).size(); }, htmlBytes);
  std::printf("records decoded: %zu (buffer %.1f MB)\n\n", events, file->buffer.size() / 1e6);
  std::printf("| step | seconds | rate | output |\n|---|---|---|---|\n");
  std::printf("| decode | %.3f | %.1f M events/s | |\n", decode, events / decode / 1e6);
  std::printf("| summary | %.3f | %.1f M events/s | %.1f KB |\n", summary, events / summary / 1e6,
              summaryBytes / 1e3);
  std::printf("| Perfetto JSON | %.3f | %.1f M events/s | %.1f MB |\n", perfetto,
              events / perfetto / 1e6, perfettoBytes / 1e6);
  std::printf("| HTML | %.3f | %.1f M events/s | %.1f MB |\n", html, events / html / 1e6,
              htmlBytes / 1e6);
  return 0;
}
