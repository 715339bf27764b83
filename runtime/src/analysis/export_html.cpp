// The HTML timeline: the decoded launch laid out for drawing (tracks of non-overlapping slices,
// typed columns) and embedded into the viewer page (runtime/viewer/). The data travels as
// JSON inside <script type="application/json">, with every '<', '>' and '&' escaped so no name
// from the trace can close the script element. export_run_html.cpp embeds the same launch data.
//
// The columns (what materialise() in runtime/viewer/js/launch_model.js reads; docs/viewer.md,
// "Large traces"): a column is "TYPE:BASE64" (TYPE u8, u16, u32, i32 or f64: little-endian, the
// narrowest that holds every value), so a million events make ~6 MB of HTML instead of ~41 MB;
// the page rebuilds the full per-event typed arrays (S.row, S.lane, S.name, S.site, S.payload,
// S.flags, S.b_cyc, S.e_cyc, S.b_ns, S.e_ns; I.row, I.lane, I.name, I.site, I.payload, I.cyc,
// I.ns) in one pass:
// - S.site, I.site: per event. S.payload, I.payload: the payload minus the previous one on its
//   track, zigzagged (even 2n: +n, odd 2n-1: -n). name comes from site (site_names: pairs
//   [site, name index]); row and lane from the CTA's tracks [row, lane, level, first, count] and
//   itracks [row, lane, first, count], which cover every event once.
// - S.b_cyc: the begin minus the previous begin on its track (the first: minus 0); S.dur_cyc:
//   end minus begin. I.cyc: the same delta on its itrack.
// - S.incomplete: the indices of incomplete slices (flags bit 0).
// - S.b_ns, S.e_ns, I.ns: a full f64 column, or {"x": indices, "v": f64 values}: then every
//   other event's ns is row_clocks[row] = [s0, k, d] applied to its cycles, s0 + (cyc + d) * k,
//   the decoder's own arithmetic (checked here bit for bit; what differs is listed in x and v).
// - flows (i32 pairs) and flow_at_cyc (f64) stay plain base64 columns.
#include "html_page.h"

#include <cutrace/export.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

namespace cutrace {
namespace html_page {

using nlohmann::json;

std::string base64(const void *data, size_t size) {
  static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const uint8_t *p = static_cast<const uint8_t *>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < size; i += 3) {
    const uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8 | p[i + 2];
    out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], abc[v & 63]};
  }
  if (i + 1 == size) {
    const uint32_t v = uint32_t(p[i]) << 16;
    out += {abc[v >> 18], abc[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == size) {
    const uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8;
    out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], '='};
  }
  return out;
}

std::string escape_text(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string script_safe(const json &doc) {
  const std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

void append_data_element(std::string &page, const std::string &id, const std::string &text) {
  page += "<script type=\"application/json\" id=\"";
  page += id;
  page += "\">";
  page += text;
  page += "</script>\n";
}

std::string head(const std::string &title) {
  std::string page = kHead;
  const size_t at = page.find("@TITLE@");
  if (at != std::string::npos)
    page.replace(at, 7, escape_text(title));
  return page;
}

namespace {

template <class Out, class In> std::string typed(const char *type, const std::vector<In> &v) {
  const std::vector<Out> out(v.begin(), v.end());
  return std::string(type) + ":" + base64(out.data(), out.size() * sizeof(Out));
}

// Non-negative integers (below 2^53) in the narrowest of u8, u16, u32, else f64.
std::string unsigned_column(const std::vector<uint64_t> &v) {
  const uint64_t top = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  if (top <= UINT8_MAX)
    return typed<uint8_t>("u8", v);
  if (top <= UINT16_MAX)
    return typed<uint16_t>("u16", v);
  if (top <= UINT32_MAX)
    return typed<uint32_t>("u32", v);
  return typed<double>("f64", v);
}

// A payload minus the previous one on its track, zigzagged (0, -1, 1, -2 -> 0, 1, 2, 3):
// k-tile indices and other counters become one byte each.
uint64_t zigzag(int64_t delta) {
  return delta < 0 ? uint64_t(-delta) * 2 - 1 : uint64_t(delta) * 2;
}

// One row's clock as the decoder applies it (decode.cpp, Stamper): ns = s0 + (cycles + d) * k,
// cycles on the CTA axis. The product is stored before the sum, as the page computes it, so no
// fused multiply-add can make the two differ.
struct RowClock {
  double s0 = 0, k = 0;
  int64_t d = 0;
  bool known = false;
  double at(uint64_t cycles) const {
    volatile double product = (double(cycles) + double(d)) * k;
    return s0 + product;
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Where the clock gives the decoder's ns bit for bit, the page computes it; the rest are listed
// (x: indices, v: values). More than a quarter listed: the whole f64 column instead.
json times_column(const std::vector<double> &ns, const std::vector<uint64_t> &cycles,
                  const std::vector<int32_t> &row, const std::vector<RowClock> &clocks) {
  std::vector<uint64_t> x;
  std::vector<double> v;
  for (size_t i = 0; i < ns.size(); ++i) {
    const RowClock &c = clocks[size_t(row[i])];
    if (c.known && same_bits(c.at(cycles[i]), ns[i]))
      continue;
    if (x.size() >= ns.size() / 4)
      return typed<double>("f64", ns);
    x.push_back(i);
    v.push_back(ns[i]);
  }
  return {{"x", unsigned_column(x)}, {"v", typed<double>("f64", v)}};
}

struct Columns {
  std::vector<int32_t> row;
  std::vector<uint64_t> site, payload, b_cyc, e_cyc, b_delta, dur, incomplete;
  std::vector<double> b_ns, e_ns;
};

struct InstantColumns {
  std::vector<int32_t> row;
  std::vector<uint64_t> site, payload, cyc, delta;
  std::vector<double> ns;
};

class Layout {
public:
  Layout(const DecodeMap &map, const Trace &t) : map_(map), t_(t) {}

  json build() {
    slice_index_.resize(t_.rows.size());
    json ctas = json::array();
    for (size_t first = 0; first < t_.rows.size();) {
      size_t last = first;
      while (last < t_.rows.size() && t_.rows[last].cta == t_.rows[first].cta)
        ++last;
      if (std::optional<json> cta = lay_out_cta(first, last))
        ctas.push_back(std::move(*cta));
      first = last;
    }
    json doc;
    doc["kernel"] = t_.kernel;
    doc["clock"] = t_.header.clock == Clock::clock64 ? "clock64" : "globaltimer";
    doc["grid"] = {t_.header.grid[0], t_.header.grid[1], t_.header.grid[2]};
    doc["block"] = {t_.header.block[0], t_.header.block[1], t_.header.block[2]};
    doc["max_events"] = t_.header.max_events;
    doc["origin_ns"] = t_.origin_ns; // globaltimer ns; every *_ns column counts from it
    doc["names"] = names_;
    doc["name_counts"] = name_counts_;
    doc["site_names"] = json(site_names_);
    doc["rows"] = rows_json();
    doc["ctas"] = std::move(ctas);
    const std::vector<RowClock> clocks = row_clocks();
    json row_clocks = json::array();
    for (const RowClock &c : clocks)
      row_clocks.push_back(c.known ? json{c.s0, c.k, c.d} : json(nullptr));
    doc["row_clocks"] = std::move(row_clocks);
    doc["S"] = {{"n", s_.row.size()},
                {"site", unsigned_column(s_.site)},
                {"payload", unsigned_column(s_.payload)},
                {"incomplete", unsigned_column(s_.incomplete)},
                {"b_cyc", unsigned_column(s_.b_delta)},
                {"dur_cyc", unsigned_column(s_.dur)},
                {"b_ns", times_column(s_.b_ns, s_.b_cyc, s_.row, clocks)},
                {"e_ns", times_column(s_.e_ns, s_.e_cyc, s_.row, clocks)}};
    doc["I"] = {{"n", i_.row.size()},
                {"site", unsigned_column(i_.site)},
                {"payload", unsigned_column(i_.payload)},
                {"cyc", unsigned_column(i_.delta)},
                {"ns", times_column(i_.ns, i_.cyc, i_.row, clocks)}};
    std::vector<double> flow_at;
    doc["flows"] = column(flows_json(flow_at));
    doc["flow_at_cyc"] = column(flow_at);
    doc["counts"] = counts_json();
    const size_t shown = std::min<size_t>(t_.problems.size(), 200);
    doc["problems"] = std::vector<std::string>(t_.problems.begin(), t_.problems.begin() + shown);
    doc["problem_count"] = t_.problems.size();
    return doc;
  }

private:
  // Counts the event's name; the page finds a name from its site (the decoder names an event
  // after its site), so each site is paired with its name's index once.
  void count_name(uint32_t site, const std::string &name) {
    auto [it, fresh] = name_ids_.try_emplace(name, int32_t(names_.size()));
    if (fresh) {
      names_.push_back(name);
      name_counts_.push_back(0);
    }
    ++name_counts_[it->second];
    if (site_name_.try_emplace(site, it->second).second)
      site_names_.push_back({site, uint32_t(it->second)});
  }

  // Per row, the decoder's clock (clock64 buffers only): s0 and k as the decoder has them, and d
  // (the CTA's zero minus the row's start, not kept in the Trace) found from the row's first
  // event and then checked against every event by times_column.
  std::vector<RowClock> row_clocks() const {
    std::vector<RowClock> clocks(t_.rows.size());
    if (t_.header.clock != Clock::clock64)
      return clocks;
    for (size_t r = 0; r < t_.rows.size(); ++r) {
      const Row &row = t_.rows[r];
      RowClock &c = clocks[r];
      c.s0 = double(int64_t(row.start_ns - t_.origin_ns));
      c.k = 1.0 / row.ghz;
      uint64_t cycles = 0;
      double ns = 0;
      if (!row.slices.empty())
        cycles = row.slices[0].begin_cycles, ns = row.slices[0].begin_ns;
      else if (!row.instants.empty())
        cycles = row.instants[0].cycles, ns = row.instants[0].ns;
      else
        continue;
      const double guess = std::round((ns - c.s0) / c.k) - double(cycles);
      if (!(row.ghz > 0) || !(std::fabs(guess) < 9e15))
        continue;
      for (int64_t step : {0, -1, 1, -2, 2, -3, 3}) {
        c.d = int64_t(guess) + step;
        if (same_bits(c.at(cycles), ns)) {
          c.known = true;
          break;
        }
      }
    }
    return clocks;
  }

  // One CTA: per row and lane, slices on levels where they never overlap (so a level is sorted
  // by both begin and end and the page can binary-search it), then instants per row and lane.
  std::optional<json> lay_out_cta(size_t first, size_t last) {
    json tracks = json::array(), itracks = json::array(), rows = json::array();
    double b_ns = 0, e_ns = 0, end_cyc = 0;
    bool any = false, have_sm = false;
    uint32_t smid = 0;
    const size_t first_slice = s_.row.size(), first_instant = i_.row.size();
    for (size_t r = first; r < last; ++r) {
      const Row &row = t_.rows[r];
      if (!row.started && row.slices.empty() && row.instants.empty())
        continue;
      rows.push_back(r);
      const double rb = row.started ? row_start_ns(t_, row) : row_end_ns(t_, row);
      const double re = row_end_ns(t_, row);
      b_ns = any ? std::min(b_ns, rb) : rb;
      e_ns = any ? std::max(e_ns, re) : re;
      if (row.started && !have_sm) // every row of a CTA runs on the CTA's SM
        smid = row.smid, have_sm = true;
      any = true;
      lay_out_slices(uint32_t(r), tracks, end_cyc);
      lay_out_instants(uint32_t(r), itracks, end_cyc);
    }
    if (!any)
      return std::nullopt;
    const uint32_t cta = t_.rows[first].cta;
    const std::array<uint32_t, 3> xyz = cta_coords(t_.header, cta);
    return json{{"cta", cta},
                {"xyz", {xyz[0], xyz[1], xyz[2]}},
                {"sm", smid},
                {"rows", rows},
                {"b_ns", b_ns},
                {"e_ns", e_ns},
                {"end_cyc", end_cyc},
                {"tracks", tracks},
                {"itracks", itracks},
                {"slices", s_.row.size() - first_slice},
                {"instants", i_.row.size() - first_instant}};
  }

  void lay_out_slices(uint32_t r, json &tracks, double &end_cyc) {
    const Row &row = t_.rows[r];
    slice_index_[r].assign(row.slices.size(), 0);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> levels; // (lane, level)
    std::map<uint32_t, std::vector<uint64_t>> level_ends;                  // per lane
    for (uint32_t i = 0; i < row.slices.size(); ++i) { // row.slices is sorted by begin
      const Slice &s = row.slices[i];
      std::vector<uint64_t> &ends = level_ends[s.lane];
      uint32_t level = 0;
      while (level < ends.size() && ends[level] > s.begin_cycles)
        ++level;
      if (level == ends.size())
        ends.push_back(0);
      ends[level] = s.end_cycles;
      levels[{s.lane, level}].push_back(i);
    }
    for (const auto &[key, members] : levels) {
      tracks.push_back({r, key.first, key.second, s_.row.size(), members.size()});
      uint64_t previous = 0; // a level is sorted by begin
      int64_t previous_payload = 0;
      for (uint32_t i : members) {
        const Slice &s = row.slices[i];
        slice_index_[r][i] = uint32_t(s_.row.size());
        if (s.incomplete)
          s_.incomplete.push_back(s_.row.size());
        s_.row.push_back(int32_t(r));
        count_name(s.site, s.name);
        s_.payload.push_back(zigzag(int64_t(s.payload) - previous_payload));
        previous_payload = s.payload;
        s_.site.push_back(s.site);
        s_.b_cyc.push_back(s.begin_cycles);
        s_.e_cyc.push_back(s.end_cycles);
        s_.b_delta.push_back(s.begin_cycles - previous);
        s_.dur.push_back(s.end_cycles - s.begin_cycles);
        previous = s.begin_cycles;
        s_.b_ns.push_back(s.begin_ns);
        s_.e_ns.push_back(s.end_ns);
        end_cyc = std::max(end_cyc, double(s.end_cycles));
      }
    }
  }

  void lay_out_instants(uint32_t r, json &itracks, double &end_cyc) {
    const Row &row = t_.rows[r];
    std::map<uint32_t, std::vector<uint32_t>> by_lane;
    for (uint32_t i = 0; i < row.instants.size(); ++i)
      by_lane[row.instants[i].lane].push_back(i);
    for (const auto &[lane, members] : by_lane) {
      itracks.push_back({r, lane, i_.row.size(), members.size()});
      std::vector<uint32_t> sorted = members;
      std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
        return row.instants[a].cycles < row.instants[b].cycles;
      });
      uint64_t previous = 0;
      int64_t previous_payload = 0;
      for (uint32_t i : sorted) {
        const Instant &in = row.instants[i];
        i_.row.push_back(int32_t(r));
        count_name(in.site, in.name);
        i_.payload.push_back(zigzag(int64_t(in.payload) - previous_payload));
        previous_payload = in.payload;
        i_.site.push_back(in.site);
        i_.cyc.push_back(in.cycles);
        i_.delta.push_back(in.cycles - previous);
        previous = in.cycles;
        i_.ns.push_back(in.ns);
        end_cyc = std::max(end_cyc, double(in.cycles));
      }
    }
  }

  json rows_json() const {
    json rows = json::array();
    for (const Row &r : t_.rows)
      rows.push_back({{"cta", r.cta},
                      {"group", r.group},
                      {"slice", r.sliced() ? json(r.slice) : json(nullptr)},
                      {"label", r.label},
                      {"sm", r.smid},
                      {"started", r.started},
                      {"closed", r.closed},
                      {"ghz", r.ghz},
                      {"measured", r.ghz_measured},
                      {"rate_source", rate_source_name(r.ghz_source)},
                      {"attempted", r.attempted},
                      {"stored", r.stored},
                      {"dropped", r.dropped},
                      {"unmatched", r.unmatched_ends}});
    return rows;
  }

  // Pairs of slice indices (page order), sorted by CTA since slices are laid out CTA by CTA;
  // `at` gets, in the same order, the cycle where each arrow lands inside its dst slice.
  std::vector<int32_t> flows_json(std::vector<double> &at) const {
    std::vector<std::tuple<int32_t, int32_t, double>> pairs;
    for (const Flow &f : t_.flows)
      pairs.emplace_back(int32_t(slice_index_[f.src.row][f.src.slice]),
                         int32_t(slice_index_[f.dst.row][f.dst.slice]), double(f.at_cycles));
    std::sort(pairs.begin(), pairs.end());
    std::vector<int32_t> flat;
    for (auto [a, b, c] : pairs) {
      flat.insert(flat.end(), {a, b});
      at.push_back(c);
    }
    return flat;
  }

  json counts_json() const {
    uint64_t dropped = 0, unmatched = 0, incomplete = 0, unknown = 0, invalid = 0, killed = 0;
    for (const Row &r : t_.rows) {
      dropped += r.dropped;
      unmatched += r.unmatched_ends;
      unknown += r.unknown_sites;
      invalid += r.invalid_records;
      killed += r.never_ended();
      for (const Slice &s : r.slices)
        incomplete += s.incomplete;
    }
    return {{"dropped", dropped},
            {"unmatched_ends", unmatched},
            {"incomplete", incomplete},
            {"unknown_sites", unknown},
            {"invalid_records", invalid},
            {"rows_never_ended", killed},
            {"flows", t_.flows.size()},
            {"backward_flows", t_.backward_flows},
            {"unpaired_flows", t_.unpaired_flows}};
  }

  const DecodeMap &map_;
  const Trace &t_;
  std::map<std::string, int32_t> name_ids_;
  std::vector<std::string> names_;
  std::vector<uint64_t> name_counts_;
  std::map<uint32_t, int32_t> site_name_;           // site id -> index in names_
  std::vector<std::array<uint32_t, 2>> site_names_; // the same, for the page
  Columns s_;
  InstantColumns i_;
  std::vector<std::vector<uint32_t>> slice_index_; // [row][slice in row] -> page slice index
};

} // namespace

json map_data(const DecodeMap &map) {
  json groups = json::array();
  for (const GroupInfo &g : map.groups) {
    json group = {{"name", g.name}, {"lead", g.lead}};
    if (g.sliced())
      group.update({{"slice_threads", g.slice_threads}, {"first_thread", g.first_thread}});
    groups.push_back(std::move(group));
  }
  json sites = json::array();
  for (const Site &s : map.sites)
    sites.push_back({{"id", s.id}, {"loc", s.loc}});
  return {{"source", map.source}, {"lanes", map.lanes}, {"groups", groups}, {"sites", sites}};
}

json launch_data(const DecodeMap &map, const Trace &trace) { return Layout(map, trace).build(); }

// Per item, a little over what it costs in the JSON: a slice is 4 columns of at most 4 bytes
// (~12 bytes typical, 16 in base64), an instant 3 (~10 in base64); without clock64 (no row
// clock) the ns columns are f64 (+22 and +11). A row's object with its tracks (and its label),
// and a CTA's object, are ~200 bytes of keys and numbers. Names are bounded by the map's sites.
size_t launch_data_estimate(const DecodeMap &map, const Trace &trace) {
  const bool clock64 = trace.header.clock == Clock::clock64;
  const size_t per_slice = clock64 ? 18 : 40, per_instant = clock64 ? 11 : 22;
  size_t bytes = 800 + trace.kernel.size(), ctas = 0;
  for (const Site &s : map.sites)
    bytes += s.name.size() + 20;
  for (size_t r = 0; r < trace.rows.size(); ++r) {
    const Row &row = trace.rows[r];
    ctas += r == 0 || trace.rows[r - 1].cta != row.cta;
    bytes +=
        330 + row.label.size() + row.slices.size() * per_slice + row.instants.size() * per_instant;
  }
  for (size_t p = 0; p < std::min<size_t>(trace.problems.size(), 200); ++p)
    bytes += trace.problems[p].size() + 8;
  return bytes + ctas * 220 + trace.flows.size() * 22;
}

} // namespace html_page

std::string export_html(const DecodeMap &map, const Trace &trace, const HtmlOptions &options) {
  using namespace html_page;
  json doc = launch_data(map, trace);
  doc.update(map_data(map));
  doc["initial_cta"] = options.initial_cta ? json(*options.initial_cta) : json(nullptr);
  const std::string data = script_safe(doc);
  std::string page = head("cutrace: " + trace.kernel);
  page.reserve(page.size() + data.size() + std::strlen(kViewer) + std::strlen(kEnd) + 128);
  append_data_element(page, "cutrace-data", data);
  page += kViewer;
  page += kEnd;
  page += kClose;
  return page;
}

} // namespace cutrace
