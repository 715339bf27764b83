// Aligned terminal tables and number formatting shared by the launch summary
// (export_summary.cpp) and the run summary (export_run_summary.cpp). Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_SUMMARY_TABLE_H
#define CUTRACE_ANALYSIS_SUMMARY_TABLE_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace cutrace::summary_table {

// Columns right-aligned except the first; widths from the widest cell; each line indented.
class Table {
public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str(const std::string &indent = "  ") const {
    std::vector<size_t> width(rows_[0].size(), 0);
    for (const auto &row : rows_)
      for (size_t c = 0; c < row.size() && c < width.size(); ++c)
        width[c] = std::max(width[c], row[c].size());
    std::string out;
    for (size_t r = 0; r < rows_.size(); ++r) {
      std::string line;
      for (size_t c = 0; c < width.size(); ++c) {
        const std::string &cell = c < rows_[r].size() ? rows_[r][c] : std::string();
        const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
        line += (c ? "  " : "") + (c == 0 ? cell + pad : pad + cell);
      }
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      out += indent + line + "\n";
      if (r == 0) {
        size_t total = 0;
        for (size_t w : width)
          total += w + 2;
        out += indent + std::string(total - 2, '-') + "\n";
      }
    }
    return out;
  }

private:
  std::vector<std::vector<std::string>> rows_;
};

inline std::string num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
inline std::string count(uint64_t v) { return std::to_string(v); }

// Kernel names and event names come from the trace: keep control characters off the terminal.
inline std::string printable(const std::string &s) {
  std::string out;
  for (char c : s)
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return out;
}

} // namespace cutrace::summary_table

#endif // CUTRACE_ANALYSIS_SUMMARY_TABLE_H
