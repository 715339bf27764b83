// `trace-view list FILE...` (docs/viewer.md, "Listing a run's launches"): one line per recorded
// launch, by process and sequence number, with what it lost. Reads the row headers only, so a run
// of any size is listed in bounded memory.
#include "list.h"

#include "inputs.h"

#include <cutrace/completeness.h>
#include <cutrace/run_trace.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

namespace trace_view {

namespace {

std::string dims(const uint32_t d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

std::string us(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1000.0);
  return buf;
}

// The cudaStream_t value in hex, as every other output prints it (the run overview, the summary,
// Perfetto): "0x7f3a...", and 0 as "0 (legacy default)".
std::string stream_hex(uint64_t stream) {
  if (stream == 0)
    return "0 (legacy default)";
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, stream);
  return text;
}

// "complete", or what the row headers tell was lost: "984 dropped, 1 row never ended".
std::string completeness(const cutrace::RunLaunch &l) {
  const cutrace::Completeness c = cutrace::completeness_of(l);
  if (c.complete())
    return "complete";
  std::string out;
  auto add = [&out](const std::string &what) { out += (out.empty() ? "" : ", ") + what; };
  if (c.ctas_left_out)
    add("1 CTA in " + std::to_string(c.cta_stride));
  if (c.dropped_events)
    add(std::to_string(c.dropped_events) + " dropped");
  if (c.incomplete_slices)
    add(std::to_string(c.incomplete_slices) + " incomplete");
  if (c.rows_never_ended)
    add(std::to_string(c.rows_never_ended) + (c.rows_never_ended == 1 ? " row" : " rows") +
        " never ended");
  if (c.decode_problems)
    add(std::to_string(c.decode_problems) + " problems: " + l.trace.problems.front());
  return out;
}

// Characters of UTF-8 text ("µs" is two).
size_t columns(const std::string &s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// Columns left-aligned, two spaces apart.
std::string table(const std::vector<std::vector<std::string>> &lines) {
  std::vector<size_t> width(lines.front().size(), 0);
  for (const auto &line : lines)
    for (size_t c = 0; c < line.size(); ++c)
      width[c] = std::max(width[c], columns(line[c]));
  std::string out;
  for (const auto &line : lines) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c)
      text +=
          line[c] + (c + 1 < line.size() ? std::string(width[c] - columns(line[c]) + 2, ' ') : "");
    out += text + "\n";
  }
  return out;
}

} // namespace

int list_command(const ListArgs &args) {
  cutrace::RunReadOptions headers_only;
  headers_only.max_buffer_bytes = 0;
  std::string out;
  for (const std::string &path : args.inputs) {
    cutrace::Expected<cutrace::RunTrace> run =
        cutrace::decode_run(read_input(path, headers_only), path);
    if (!run)
      input_error(path + ": " + run.error);
    std::vector<const cutrace::RunLaunch *> launches;
    for (const cutrace::RunLaunch &l : run->launches)
      launches.push_back(&l);
    std::stable_sort(launches.begin(), launches.end(),
                     [](const cutrace::RunLaunch *a, const cutrace::RunLaunch *b) {
                       return a->sequence < b->sequence;
                     });
    std::vector<std::vector<std::string>> lines = {
        {"seq", "kernel", "grid", "block", "GPU", "stream", "start µs", "duration µs", "completeness"}};
    for (const cutrace::RunLaunch *l : launches)
      lines.push_back({std::to_string(l->sequence), l->trace.kernel, dims(l->grid), dims(l->block),
                       std::to_string(run->devices[l->device].index),
                       stream_hex(l->stream), us(l->begin_ns), us(l->end_ns - l->begin_ns),
                       completeness(*l)});
    const cutrace::RunCompleteness c = cutrace::run_completeness(*run);
    out += (out.empty() ? "" : "\n") + path + ": " + std::to_string(c.launches) +
           (c.launches == 1 ? " launch" : " launches") + "\n" + table(lines);
    for (const cutrace::UndecodedLaunch &u : run->lost)
      out += "not decoded: " + cutrace::undecoded_name(u) + ": " + u.why + "\n";
    if (c.unfinished_processes)
      out += "the run did not finish writing its file (no END section): launches after the last "
             "one are not known\n";
  }
  std::fputs(out.c_str(), stdout);
  return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 1;
}

} // namespace trace_view
