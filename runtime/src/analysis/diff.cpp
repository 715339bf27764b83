// Comparing two traces of one kernel (cutrace/diff.h; docs/analysis.md, "Comparing two traces").
// Every row is a sample pooled over the side's launches; totals are divided by the side's CTAs so
// grids of different sizes compare, and the impact of a row is what it adds to each CTA.
#include "completeness_json.h"

#include <cutrace/analysis.h>
#include <cutrace/diff.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

namespace cutrace {

namespace {

using RowKey = std::pair<DiffKind, std::string>;

struct Samples {
  std::vector<double> ns, cycles;
  uint64_t count = 0, incomplete = 0;
};

struct SideRows {
  std::map<RowKey, Samples> rows;
  uint64_t ctas = 0;
};

uint64_t started_ctas(const Trace &t) {
  std::set<uint32_t> ctas;
  for (const Row &row : t.rows)
    if (row.started || !row.slices.empty() || !row.instants.empty())
      ctas.insert(row.cta);
  return ctas.size();
}

SideRows collect(const DiffSide &side) {
  SideRows out;
  for (const Trace *t : side.launches) {
    out.ctas += started_ctas(*t);
    for (const Row &row : t->rows) {
      for (const Slice &s : row.slices) {
        Samples &x = out.rows[{DiffKind::slice, s.name}];
        x.ns.push_back(s.end_ns - s.begin_ns);
        x.cycles.push_back(double(s.end_cycles - s.begin_cycles));
        ++x.count;
        x.incomplete += s.incomplete;
      }
      for (const Instant &i : row.instants)
        ++out.rows[{DiffKind::instant, i.name}].count;
    }
    for (const Flow &f : t->flows) {
      const std::string pair = t->rows[f.src.row].slices[f.src.slice].name + " -> " +
                               t->rows[f.dst.row].slices[f.dst.slice].name;
      const HandoffTiming h = handoff_timing(*t, f);
      const bool cut = t->rows[f.src.row].slices[f.src.slice].incomplete ||
                       t->rows[f.dst.row].slices[f.dst.slice].incomplete;
      Samples &w = out.rows[{DiffKind::handoff_wait, pair}];
      w.ns.push_back(h.wait_ns);
      w.cycles.push_back(h.wait_cycles);
      ++w.count;
      w.incomplete += cut;
      Samples &g = out.rows[{DiffKind::handoff_gap, pair}];
      g.ns.push_back(h.gap_ns);
      g.cycles.push_back(h.gap_cycles);
      ++g.count;
      g.incomplete += cut;
    }
  }
  return out;
}

DiffStats stats_of(const SideRows &side, const RowKey &key) {
  DiffStats s;
  s.ctas = side.ctas;
  auto it = side.rows.find(key);
  if (it == side.rows.end())
    return s;
  s.count = it->second.count;
  s.incomplete = it->second.incomplete;
  s.ns = durations_of(it->second.ns);
  if (!it->second.cycles.empty())
    s.mean_cycles = durations_of(it->second.cycles).mean;
  return s;
}

// The measure a row's noise and relative change are taken on: time per CTA, or for instants the
// count per CTA.
double measure(DiffKind kind, const DiffStats &s) {
  return kind == DiffKind::instant ? s.count_per_cta() : s.total_per_cta_ns();
}

double relative_change(double a, double b) {
  if (a == b)
    return 0;
  if (a == 0)
    return b > 0 ? std::numeric_limits<double>::infinity()
                 : -std::numeric_limits<double>::infinity();
  return (b - a) / std::fabs(a);
}

std::vector<RowKey> keys_of(const SideRows &a, const SideRows &b) {
  std::set<RowKey> keys;
  for (const auto &[k, v] : a.rows)
    keys.insert(k);
  for (const auto &[k, v] : b.rows)
    keys.insert(k);
  return {keys.begin(), keys.end()};
}

// The side's kernel durations (one per launch) and CTA durations (every CTA), ns.
struct WholeKernel {
  Durations kernel, cta;
};

WholeKernel whole_kernel_of(const DiffSide &side) {
  std::vector<double> kernel, cta;
  for (const Trace *t : side.launches) {
    const TailReport tail = analyze_tail(*t);
    if (tail.ctas.empty())
      continue;
    kernel.push_back(tail.kernel_end_ns - tail.kernel_start_ns);
    for (const CtaSpan &c : tail.ctas)
      cta.push_back(c.finish_ns - c.start_ns);
  }
  return {durations_of(std::move(kernel)), durations_of(std::move(cta))};
}

// The figures of the whole-kernel line, by name, on one side.
std::vector<std::pair<std::string, double>> whole_kernel_values(const DiffSide &side) {
  const WholeKernel w = whole_kernel_of(side);
  return {{"kernel p50", w.kernel.p50}, {"CTA p50", w.cta.p50}, {"CTA p95", w.cta.p95}};
}

std::string kernel_of(const DiffSide &side) {
  return side.launches.empty() ? std::string() : side.launches.front()->kernel;
}

std::string dims(const uint32_t d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

} // namespace

const char *diff_kind_name(DiffKind kind) {
  switch (kind) {
  case DiffKind::slice:
    return "slice";
  case DiffKind::handoff_wait:
    return "wait";
  case DiffKind::handoff_gap:
    return "gap";
  case DiffKind::instant:
    return "instant";
  }
  return "?";
}

double NoiseModel::default_threshold(DiffKind kind) const {
  return kind == DiffKind::handoff_wait || kind == DiffKind::handoff_gap ? handoff_threshold
                                                                         : slice_threshold;
}

double NoiseModel::threshold(DiffKind kind, const std::string &name, bool *measured_here) const {
  auto it = measured.find({kind, name});
  if (measured_here)
    *measured_here = it != measured.end();
  return it == measured.end() ? default_threshold(kind) : factor * it->second;
}

std::vector<KernelFigure> kernel_figures(const DiffSide &a, const DiffSide &b,
                                         const NoiseModel &noise) {
  const auto va = whole_kernel_values(a), vb = whole_kernel_values(b);
  std::vector<KernelFigure> out;
  for (size_t i = 0; i < va.size(); ++i) {
    KernelFigure f;
    f.what = va[i].first;
    f.a = va[i].second;
    f.b = vb[i].second;
    f.relative = relative_change(f.a, f.b);
    f.threshold = noise.threshold(DiffKind::slice, "(" + f.what + ")");
    f.within_noise = std::fabs(f.relative) <= f.threshold;
    out.push_back(std::move(f));
  }
  return out;
}

void add_noise_measurement(NoiseModel &noise, const DiffSide &c, const DiffSide &d) {
  const auto vc = whole_kernel_values(c), vd = whole_kernel_values(d);
  for (size_t i = 0; i < vc.size(); ++i) {
    double &seen = noise.measured[{DiffKind::slice, "(" + vc[i].first + ")"}];
    seen = std::max(seen, std::fabs(relative_change(vc[i].second, vd[i].second)));
  }
  const SideRows rc = collect(c), rd = collect(d);
  for (const RowKey &key : keys_of(rc, rd)) {
    const double r = std::fabs(relative_change(measure(key.first, stats_of(rc, key)),
                                               measure(key.first, stats_of(rd, key))));
    double &seen = noise.measured[key];
    seen = std::max(seen, r);
  }
  noise.sources.push_back(c.label + " vs " + d.label);
}

TraceDiff diff_traces(const DiffSide &a, const DiffSide &b, const NoiseModel &noise) {
  TraceDiff diff;
  diff.kernel_a = kernel_of(a);
  diff.kernel_b = kernel_of(b);
  diff.label_a = a.label;
  diff.label_b = b.label;
  diff.launches_a = a.launches.size();
  diff.launches_b = b.launches.size();
  diff.slice_threshold = noise.slice_threshold;
  diff.handoff_threshold = noise.handoff_threshold;
  diff.factor = noise.factor;
  diff.noise_sources = noise.sources;
  if (diff.kernel_a != diff.kernel_b)
    diff.warnings.push_back("different kernels: " + diff.kernel_a + " and " + diff.kernel_b);
  if (!a.launches.empty() && !b.launches.empty()) {
    const BufferHeader &ha = a.launches.front()->header, &hb = b.launches.front()->header;
    if (!std::equal(ha.grid, ha.grid + 3, hb.grid))
      diff.warnings.push_back("grids differ: " + dims(ha.grid) + " and " + dims(hb.grid) +
                              " (totals are per CTA)");
    if (!std::equal(ha.block, ha.block + 3, hb.block))
      diff.warnings.push_back("blocks differ: " + dims(ha.block) + " and " + dims(hb.block));
  }

  for (const Trace *t : a.launches)
    diff.completeness_a.add(completeness_of(*t));
  for (const Trace *t : b.launches)
    diff.completeness_b.add(completeness_of(*t));
  if (diff.completeness_differs())
    diff.warnings.push_back("completeness differs (A " + completeness_line(diff.completeness_a) +
                            "; B " + completeness_line(diff.completeness_b) +
                            "): no change is called noise");

  diff.whole_kernel = kernel_figures(a, b, noise);
  if (diff.completeness_differs())
    for (KernelFigure &f : diff.whole_kernel)
      f.within_noise = false;
  const SideRows ra = collect(a), rb = collect(b);
  diff.ctas_a = ra.ctas;
  diff.ctas_b = rb.ctas;
  for (const RowKey &key : keys_of(ra, rb)) {
    DiffRow row;
    row.kind = key.first;
    row.name = key.second;
    row.a = stats_of(ra, key);
    row.b = stats_of(rb, key);
    if (row.kind != DiffKind::instant)
      row.impact_ns = std::fabs(row.b.total_per_cta_ns() - row.a.total_per_cta_ns());
    row.relative = relative_change(measure(row.kind, row.a), measure(row.kind, row.b));
    row.threshold = noise.threshold(row.kind, row.name, &row.measured_noise);
    const double events_per_cta = std::max(row.a.count_per_cta(), row.b.count_per_cta());
    const bool below_resolution =
        row.kind != DiffKind::instant && row.impact_ns <= noise.resolution_ns * events_per_cta;
    row.within_noise = std::fabs(row.relative) <= row.threshold || below_resolution;
    if (row.within_noise && diff.completeness_differs()) {
      row.within_noise = false;
      row.noise_refused = true;
    }
    diff.rows.push_back(std::move(row));
  }
  auto order = [](const DiffRow &r) {
    const bool instant = r.kind == DiffKind::instant;
    const double size =
        instant ? std::fabs(r.b.count_per_cta() - r.a.count_per_cta()) : r.impact_ns;
    return std::make_tuple(instant, -size, int(r.kind), std::cref(r.name));
  };
  std::stable_sort(diff.rows.begin(), diff.rows.end(),
                   [&](const DiffRow &x, const DiffRow &y) { return order(x) < order(y); });
  return diff;
}

namespace {

std::string fixed(double v, int decimals = 1) {
  if (std::isinf(v))
    return v > 0 ? "new" : "gone";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent(double relative) {
  if (std::isinf(relative))
    return relative > 0 ? "new" : "gone";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * relative);
  return buf;
}

std::string signed_ns(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f", v);
  return buf;
}

std::string row_label(const DiffRow &r) {
  if (r.a.incomplete || r.b.incomplete) {
    DiffRow plain = r;
    plain.a.incomplete = plain.b.incomplete = 0;
    return row_label(plain) + " [incomplete: A " + std::to_string(r.a.incomplete) + ", B " +
           std::to_string(r.b.incomplete) + "]";
  }
  switch (r.kind) {
  case DiffKind::handoff_wait:
    return r.name + " (wait)";
  case DiffKind::handoff_gap:
    return r.name + " (gap)";
  case DiffKind::instant:
    return r.name + " (instant)";
  case DiffKind::slice:
    break;
  }
  return r.name;
}

std::string table(const std::vector<std::vector<std::string>> &cells) {
  std::vector<size_t> width;
  for (const auto &line : cells)
    for (size_t c = 0; c < line.size(); ++c) {
      width.resize(std::max(width.size(), line.size()));
      width[c] = std::max(width[c], line[c].size());
    }
  std::string out;
  for (const auto &line : cells) {
    std::string text = "  ";
    for (size_t c = 0; c < line.size(); ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      text += c == 0 ? line[c] + pad : pad + line[c]; // names left, numbers right
      text += c + 1 < line.size() ? "  " : "";
    }
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += text + "\n";
  }
  return out;
}

// "whole kernel: kernel p50 A -> B ns (-47.5%, band ±5.0%), ...": what the stages below add
// up to, first.
std::string whole_kernel_line(const std::vector<KernelFigure> &figures) {
  std::string out;
  for (const KernelFigure &f : figures)
    out += (out.empty() ? "" : "; ") + f.what + " " + fixed(f.a) + " -> " + fixed(f.b) + " ns (" +
           percent(f.relative) + (f.within_noise ? ", noise: " : ", ") + "band ±" +
           percent(f.threshold).substr(1) + ")";
  return "  whole kernel: " + out + "\n";
}

} // namespace

std::string format_diff(const TraceDiff &d, size_t top) {
  std::string out = "diff of " + d.kernel_a;
  if (d.kernel_b != d.kernel_a)
    out += " and " + d.kernel_b;
  auto side = [](const std::string &label, uint64_t launches, uint64_t ctas) {
    return label + ": " +
           (launches == 1 ? std::string("1 launch")
                          : std::to_string(launches) + " launches pooled") +
           ", " + std::to_string(ctas) + " CTAs\n";
  };
  out += "\n" + whole_kernel_line(d.whole_kernel);
  out += "  A: " + side(d.label_a, d.launches_a, d.ctas_a);
  out += "  B: " + side(d.label_b, d.launches_b, d.ctas_b);
  for (const std::string &w : d.warnings)
    out += "  warning: " + w + "\n";
  const std::string defaults = percent(d.slice_threshold).substr(1) + " for slices, " +
                               percent(d.handoff_threshold).substr(1) + " for hand-offs";
  out += "  rows by impact = |change of total time per CTA| (the signed change, B - A, is 'change "
         "ns'); noise: ";
  if (d.noise_sources.empty()) {
    out += "|change| <= " + defaults + " (default, measured on an H200)\n";
  } else {
    std::string pairs;
    for (size_t i = 0; i < d.noise_sources.size(); ++i)
      pairs += (i ? "; " : "") + d.noise_sources[i];
    out += "|change| <= " + fixed(d.factor, 1) + " x the change between " + pairs + " (" +
           defaults + " where not measured)\n";
  }
  out += "\n";
  std::vector<std::vector<std::string>> cells = {
      {"name", "count A", "count B", "mean ns A", "mean ns B", "p95 ns A", "p95 ns B",
       "total/CTA A", "total/CTA B", "change ns", "change", "noise"}};
  size_t shown = 0;
  for (const DiffRow &r : d.rows) {
    if (top && shown == top)
      break;
    ++shown;
    const bool instant = r.kind == DiffKind::instant;
    cells.push_back({row_label(r), std::to_string(r.a.count), std::to_string(r.b.count),
                     instant ? "" : fixed(r.a.ns.mean), instant ? "" : fixed(r.b.ns.mean),
                     instant ? "" : fixed(r.a.ns.p95), instant ? "" : fixed(r.b.ns.p95),
                     instant ? "" : fixed(r.a.total_per_cta_ns()),
                     instant ? "" : fixed(r.b.total_per_cta_ns()),
                     instant ? "" : signed_ns(r.b.total_per_cta_ns() - r.a.total_per_cta_ns()),
                     percent(r.relative),
                     r.within_noise    ? "noise"
                     : r.noise_refused ? "not noise: gaps differ"
                                       : ""});
  }
  out += table(cells);
  if (shown < d.rows.size())
    out += "  (" + std::to_string(d.rows.size() - shown) + " more rows: --top 0 shows all)\n";
  return out;
}

std::string diff_json(const TraceDiff &d) {
  using nlohmann::json;
  auto finite = [](double v) -> json {
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    return v;
  };
  auto side = [](const DiffStats &s, DiffKind kind) {
    json j = {{"count", s.count},
              {"incomplete", s.incomplete},
              {"ctas", s.ctas},
              {"count_per_cta", s.count_per_cta()}};
    if (kind != DiffKind::instant) {
      j["total_ns"] = s.ns.total;
      j["total_per_cta_ns"] = s.total_per_cta_ns();
      j["mean_ns"] = s.ns.mean;
      j["p50_ns"] = s.ns.p50;
      j["p95_ns"] = s.ns.p95;
      j["max_ns"] = s.ns.max;
      j["mean_cycles"] = s.mean_cycles;
    }
    return j;
  };
  json whole = json::array();
  for (const KernelFigure &f : d.whole_kernel)
    whole.push_back({{"what", f.what},
                     {"a_ns", f.a},
                     {"b_ns", f.b},
                     {"relative_change", finite(f.relative)},
                     {"noise_threshold", f.threshold},
                     {"within_noise", f.within_noise}});
  json rows = json::array();
  for (const DiffRow &r : d.rows)
    rows.push_back({{"kind", diff_kind_name(r.kind)},
                    {"name", r.name},
                    {"a", side(r.a, r.kind)},
                    {"b", side(r.b, r.kind)},
                    {"impact_ns", r.impact_ns},
                    {"change_per_cta_ns", r.b.total_per_cta_ns() - r.a.total_per_cta_ns()},
                    {"relative_change", finite(r.relative)},
                    {"noise_threshold", r.threshold},
                    {"noise_measured", r.measured_noise},
                    {"within_noise", r.within_noise},
                    {"noise_refused", r.noise_refused}});
  json out = {{"kernel_a", d.kernel_a},
              {"kernel_b", d.kernel_b},
              {"a",
               {{"label", d.label_a},
                {"launches", d.launches_a},
                {"ctas", d.ctas_a},
                {"completeness", completeness_json(d.completeness_a)}}},
              {"b",
               {{"label", d.label_b},
                {"launches", d.launches_b},
                {"ctas", d.ctas_b},
                {"completeness", completeness_json(d.completeness_b)}}},
              {"completeness_differs", d.completeness_differs()},
              {"noise",
               {{"slice_threshold", d.slice_threshold},
                {"handoff_threshold", d.handoff_threshold},
                {"factor", d.factor},
                {"measured_from", d.noise_sources}}},
              {"warnings", d.warnings},
              {"whole_kernel", whole},
              {"rows", rows}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace cutrace
