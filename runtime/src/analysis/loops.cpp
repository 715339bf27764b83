// Loop iterations across rows (docs/analysis.md, "Loop iterations across rows"): for each slice
// name whose payloads count iterations, how many iterations each row ran and how long they took
// from the first one's begin to the last one's end, and how unequal that is across rows.
#include <cutrace/analysis.h>

#include <algorithm>
#include <map>
#include <regex>

namespace cutrace {

std::vector<LoopReport> analyze_loops(const Trace &trace) {
  // Per name, per row: the slices of that name in the row.
  std::map<std::string, std::vector<LoopRow>> by_name;
  std::map<std::string, bool> counts_iterations;
  for (const Row &row : trace.rows) {
    std::map<std::string, LoopRow> here;
    for (const Slice &s : row.slices) {
      auto [it, first] = here.try_emplace(s.name);
      LoopRow &r = it->second;
      if (first) {
        r.row = row.index;
        r.cta = row.cta;
        r.smid = row.smid;
        r.label = row.label;
        r.first_begin_ns = s.begin_ns;
        r.last_end_ns = s.end_ns;
      }
      r.stored += 1;
      r.iterations = std::max<uint64_t>(r.iterations, uint64_t(std::max(s.payload, 0)) + 1);
      r.first_begin_ns = std::min(r.first_begin_ns, s.begin_ns);
      r.last_end_ns = std::max(r.last_end_ns, s.end_ns);
    }
    for (auto &[name, r] : here) {
      // A name counts iterations when a row holds two of its slices.
      if (r.stored > 1)
        counts_iterations[name] = true;
      by_name[name].push_back(std::move(r));
    }
  }
  std::vector<LoopReport> out;
  for (auto &[name, rows] : by_name) {
    if (!counts_iterations[name])
      continue;
    LoopReport report;
    report.name = name;
    std::vector<double> iterations, spans;
    for (const LoopRow &r : rows) {
      iterations.push_back(double(r.iterations));
      spans.push_back(r.last_end_ns - r.first_begin_ns);
    }
    report.iterations = durations_of(iterations);
    report.span_ns = durations_of(spans);
    report.rows = std::move(rows);
    out.push_back(std::move(report));
  }
  return out;
}

bool has_automatic_loops(const DecodeMap &map) {
  static const std::regex form(R"((for|while|do) \(line [0-9]+\))");
  for (const Site &s : map.sites)
    if (s.kind == SiteKind::range && std::regex_match(s.name, form))
      return true;
  return false;
}

} // namespace cutrace
