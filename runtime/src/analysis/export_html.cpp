// The HTML timeline: the decoded launch laid out for drawing (tracks of non-overlapping slices,
// typed columns) and embedded into the viewer page of export_html_page.cpp. The data travels as
// JSON inside <script type="application/json">, with every '<', '>' and '&' escaped so no name
// from the trace can close the script element; big columns are base64 little-endian arrays that
// the page maps straight onto typed arrays. export_run_html.cpp embeds the same launch data.
#include "html_page.h"

#include <cutrace/export.h>

#include <algorithm>
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

struct Columns {
  std::vector<int32_t> row, name, lane, payload, site, flags;
  std::vector<double> b_cyc, e_cyc, b_ns, e_ns;
};

struct InstantColumns {
  std::vector<int32_t> row, name, lane, payload, site;
  std::vector<double> cyc, ns;
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
    doc["rows"] = rows_json();
    doc["ctas"] = std::move(ctas);
    doc["S"] = {
        {"n", s_.row.size()},        {"row", column(s_.row)},         {"name", column(s_.name)},
        {"lane", column(s_.lane)},   {"payload", column(s_.payload)}, {"site", column(s_.site)},
        {"flags", column(s_.flags)}, {"b_cyc", column(s_.b_cyc)},     {"e_cyc", column(s_.e_cyc)},
        {"b_ns", column(s_.b_ns)},   {"e_ns", column(s_.e_ns)}};
    doc["I"] = {{"n", i_.row.size()},
                {"row", column(i_.row)},
                {"name", column(i_.name)},
                {"lane", column(i_.lane)},
                {"payload", column(i_.payload)},
                {"site", column(i_.site)},
                {"cyc", column(i_.cyc)},
                {"ns", column(i_.ns)}};
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
  int32_t name_id(const std::string &name) {
    auto [it, fresh] = name_ids_.try_emplace(name, int32_t(names_.size()));
    if (fresh) {
      names_.push_back(name);
      name_counts_.push_back(0);
    }
    ++name_counts_[it->second];
    return it->second;
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
      for (uint32_t i : members) {
        const Slice &s = row.slices[i];
        slice_index_[r][i] = uint32_t(s_.row.size());
        s_.row.push_back(int32_t(r));
        s_.name.push_back(name_id(s.name));
        s_.lane.push_back(int32_t(s.lane));
        s_.payload.push_back(s.payload);
        s_.site.push_back(int32_t(s.site));
        s_.flags.push_back(s.incomplete ? 1 : 0);
        s_.b_cyc.push_back(double(s.begin_cycles));
        s_.e_cyc.push_back(double(s.end_cycles));
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
      for (uint32_t i : sorted) {
        const Instant &in = row.instants[i];
        i_.row.push_back(int32_t(r));
        i_.name.push_back(name_id(in.name));
        i_.lane.push_back(int32_t(in.lane));
        i_.payload.push_back(in.payload);
        i_.site.push_back(int32_t(in.site));
        i_.cyc.push_back(double(in.cycles));
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

// Per item, a little over what it costs in the JSON: a slice is 56 bytes of columns (74.7 in
// base64), an instant 36 (48); a row's object with its tracks (and its label), and a CTA's
// object, are ~200 bytes of keys and numbers. Names are bounded by the map's sites.
size_t launch_data_estimate(const DecodeMap &map, const Trace &trace) {
  size_t bytes = 800 + trace.kernel.size(), ctas = 0;
  for (const Site &s : map.sites)
    bytes += s.name.size() + 8;
  for (size_t r = 0; r < trace.rows.size(); ++r) {
    const Row &row = trace.rows[r];
    ctas += r == 0 || trace.rows[r - 1].cta != row.cta;
    bytes += 280 + row.label.size() + row.slices.size() * 76 + row.instants.size() * 49;
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
