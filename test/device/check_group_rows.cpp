// check_group_rows: for groups declared together (docs/annotations.md, "TRACE_GROUP"), every row
// holds the events of the threads that write it. Reads single-launch .ctrace files and compares,
// per row label, the number of slices plus instants of each name with the expectations; a row the
// expectations name must hold exactly those, and every started row must be named.
//
//   check_group_rows KERNEL ROW:NAME=COUNT[,NAME=COUNT]... -- FILE...
//
// Exit status 1 on any difference (each printed), 2 on bad usage.
#include <cutrace/ctrace.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: check_group_rows KERNEL ROW:NAME=COUNT,... -- FILE...\n");
    return 2;
  }
  const std::string kernel = argv[1];
  std::map<std::string, std::map<std::string, uint64_t>> expected; // row label -> name -> count
  int i = 2;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    std::string spec = argv[i];
    size_t colon = spec.find(':');
    if (colon == std::string::npos)
      return 2;
    std::map<std::string, uint64_t> &row = expected[spec.substr(0, colon)];
    for (size_t at = colon + 1; at < spec.size();) {
      size_t comma = spec.find(',', at), eq = spec.find('=', at);
      if (comma == std::string::npos)
        comma = spec.size();
      row[spec.substr(at, eq - at)] = std::stoull(spec.substr(eq + 1, comma - eq - 1));
      at = comma + 1;
    }
  }
  int failures = 0, checked = 0;
  for (++i; i < argc; ++i) {
    cutrace::Expected<cutrace::Ctrace> file = cutrace::read_ctrace_file(argv[i]);
    if (!file) {
      std::printf("FAIL %s: %s\n", argv[i], file.error.c_str());
      ++failures;
      continue;
    }
    cutrace::Expected<cutrace::Trace> trace = cutrace::decode_ctrace(*file);
    if (!trace || trace->kernel != kernel)
      continue;
    ++checked;
    for (const std::string &p : trace->problems) {
      std::printf("FAIL %s: decoder: %s\n", argv[i], p.c_str());
      ++failures;
    }
    for (const cutrace::Row &row : trace->rows) {
      if (!row.started)
        continue;
      std::map<std::string, uint64_t> counts;
      for (const cutrace::Slice &s : row.slices)
        ++counts[s.name];
      for (const cutrace::Instant &e : row.instants)
        ++counts[e.name];
      auto want = expected.find(row.label);
      std::string seen;
      for (auto &[name, n] : counts)
        seen += " " + name + "=" + std::to_string(n);
      std::printf("%s cta %u row %s:%s\n", kernel.c_str(), row.cta, row.label.c_str(),
                  seen.empty() ? " (no events)" : seen.c_str());
      if (want == expected.end() || counts != want->second) {
        std::printf("FAIL %s: row %s of CTA %u holds other events than expected\n", argv[i],
                    row.label.c_str(), row.cta);
        ++failures;
      }
    }
  }
  if (checked == 0) {
    std::printf("FAIL: no recording of %s\n", kernel.c_str());
    ++failures;
  }
  std::printf("%s: %s (%d files)\n", kernel.c_str(), failures ? "FAIL" : "PASS", checked);
  return failures ? 1 : 0;
}
