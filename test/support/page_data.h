// Reading back what an HTML export embeds (docs/viewer.md): a data element's JSON, its base64
// columns, and case-insensitive counts of markup, for the export tests.
#ifndef CUTRACE_TEST_SUPPORT_PAGE_DATA_H
#define CUTRACE_TEST_SUPPORT_PAGE_DATA_H

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace cutrace::test_support {

// The text of <script type="application/json" id="ID">; empty (and a failure) when absent.
inline std::string embedded_data(const std::string &html, const std::string &id = "cutrace-data") {
  const std::string open = R"(<script type="application/json" id=")" + id + R"(">)";
  const size_t b = html.find(open);
  EXPECT_NE(b, std::string::npos) << id;
  if (b == std::string::npos)
    return {};
  const size_t e = html.find("</script>", b);
  return html.substr(b + open.size(), e - b - open.size());
}

inline std::vector<uint8_t> unbase64(const std::string &s) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = std::strchr(abc, c);
    if (c == '=' || p == nullptr)
      break;
    acc = acc << 6 | uint32_t(p - abc);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits));
    }
  }
  return out;
}

template <class T, class Stored> std::vector<T> values_as(const std::vector<uint8_t> &bytes) {
  std::vector<Stored> stored(bytes.size() / sizeof(Stored));
  if (!stored.empty()) // an empty vector's data() may be null, which memcpy must not get
    std::memcpy(stored.data(), bytes.data(), stored.size() * sizeof(Stored));
  return std::vector<T>(stored.begin(), stored.end());
}

// data[table][name], a base64 little-endian column, as values: of type T, or, for a launch's
// "TYPE:BASE64" column (export_html.cpp), of the type it names, converted to T.
template <class T>
std::vector<T> column(const nlohmann::json &data, const char *table, const char *name) {
  const std::string text = data[table][name].get<std::string>();
  const size_t colon = text.find(':');
  const std::vector<uint8_t> bytes =
      unbase64(colon == std::string::npos ? text : text.substr(colon + 1));
  const std::string type = colon == std::string::npos ? "" : text.substr(0, colon);
  if (type == "u8")
    return values_as<T, uint8_t>(bytes);
  if (type == "u16")
    return values_as<T, uint16_t>(bytes);
  if (type == "u32")
    return values_as<T, uint32_t>(bytes);
  if (type == "i32")
    return values_as<T, int32_t>(bytes);
  if (type == "f64")
    return values_as<T, double>(bytes);
  return values_as<T, T>(bytes);
}

// A launch's slices as the page rebuilds them from its columns (export_html.cpp), in page order.
struct PageSlice {
  int64_t row = 0, payload = 0, name = 0;
  double b_cyc = 0, e_cyc = 0, b_ns = 0, e_ns = 0;
};

inline std::vector<PageSlice> page_slices(const nlohmann::json &data) {
  const nlohmann::json &S = data["S"];
  const size_t n = S["n"];
  std::vector<PageSlice> out(n);
  const std::vector<double> bd = column<double>(data, "S", "b_cyc"),
                            dur = column<double>(data, "S", "dur_cyc");
  const std::vector<int64_t> payload = column<int64_t>(data, "S", "payload"),
                             site = column<int64_t>(data, "S", "site");
  std::map<int64_t, int64_t> name_of;
  for (const nlohmann::json &pair : data["site_names"])
    name_of[pair[0].get<int64_t>()] = pair[1].get<int64_t>();
  for (const nlohmann::json &cta : data["ctas"])
    for (const nlohmann::json &track : cta["tracks"]) {
      const size_t first = track[3], count = track[4];
      double b = 0;
      int64_t p = 0;
      for (size_t i = first; i < first + count; ++i) {
        b += bd[i];
        p += payload[i] % 2 ? -(payload[i] + 1) / 2 : payload[i] / 2; // zigzag
        out[i].row = track[0].get<int64_t>();
        out[i].b_cyc = b, out[i].e_cyc = b + dur[i], out[i].payload = p;
        out[i].name = name_of.at(site[i]);
      }
    }
  for (const char *key : {"b_ns", "e_ns"}) {
    const bool begin = std::string(key) == "b_ns";
    if (S[key].is_string()) {
      const std::vector<double> v = column<double>(data, "S", key);
      for (size_t i = 0; i < n; ++i)
        (begin ? out[i].b_ns : out[i].e_ns) = v[i];
      continue;
    }
    for (PageSlice &s : out) {
      const nlohmann::json &c = data["row_clocks"][size_t(s.row)];
      if (c.is_null())
        continue;
      volatile double product =
          ((begin ? s.b_cyc : s.e_cyc) + c[2].get<double>()) * c[1].get<double>();
      (begin ? s.b_ns : s.e_ns) = c[0].get<double>() + product;
    }
    const std::vector<size_t> x = column<size_t>(S, key, "x"); // where the clock does not hold
    const std::vector<double> v = column<double>(S, key, "v");
    for (size_t j = 0; j < x.size(); ++j)
      (begin ? out[x[j]].b_ns : out[x[j]].e_ns) = v[j];
  }
  return out;
}

inline size_t count_ci(const std::string &hay, const std::string &needle) {
  std::string h = hay;
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t n = 0;
  for (size_t at = h.find(needle); at != std::string::npos; at = h.find(needle, at + 1))
    ++n;
  return n;
}

} // namespace cutrace::test_support

#endif // CUTRACE_TEST_SUPPORT_PAGE_DATA_H
