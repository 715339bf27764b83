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

// data[table][name], a base64 little-endian column, as values.
template <class T>
std::vector<T> column(const nlohmann::json &data, const char *table, const char *name) {
  const std::vector<uint8_t> bytes = unbase64(data[table][name].get<std::string>());
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
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
