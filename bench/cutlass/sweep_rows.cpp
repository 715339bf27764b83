// sweep_rows: what each role's rows of a run file hold (bench/cutlass/gpu_sweep.sh). For every
// kernel whose name contains KERNEL, prints one line per role (a row's label up to its '[': every
// consumer warpgroup is the role `consumer`): its rows, and the slices and instants of each name
// summed over the run's launches. Exit status 1 when a role given as ROLE=NAME has no slice of
// that name, 2 when the file cannot be read. --launches adds a line per launch: its row capacity,
// the most record slots a row attempted, the events dropped, the rows that overflowed and the
// CTAs recorded (1 in the launch's CTA stride; bench/cutlass/gpu_rows.sh).
//   sweep_rows FILE KERNEL [--launches] [ROLE=NAME]...
#include <cutrace/completeness.h>
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: sweep_rows FILE KERNEL [ROLE=NAME]...\n");
    return 2;
  }
  cutrace::Expected<cutrace::Run> raw = cutrace::read_run_file(argv[1]);
  if (!raw) {
    std::fprintf(stderr, "%s: %s\n", argv[1], raw.error.c_str());
    return 2;
  }
  cutrace::Expected<cutrace::RunTrace> run = cutrace::decode_run(*raw, argv[1]);
  if (!run) {
    std::fprintf(stderr, "%s: %s\n", argv[1], run.error.c_str());
    return 2;
  }
  std::map<std::string, std::map<std::string, uint64_t>> names; // role -> name -> count
  std::map<std::string, std::set<std::string>> rows;            // role -> row labels
  size_t launches = 0;
  const bool per_launch = argc > 3 && std::strcmp(argv[3], "--launches") == 0;
  for (const cutrace::RunLaunch &stub : run->launches) {
    if (run->maps[stub.map].kernel.find(argv[2]) == std::string::npos)
      continue;
    std::optional<cutrace::RunLaunch> l = stub.detail ? stub : cutrace::with_detail(*run, stub);
    if (!l)
      continue;
    ++launches;
    if (per_launch) {
      uint32_t most = 0;
      for (const cutrace::Row &row : l->trace.rows)
        most = std::max(most, row.attempted);
      const cutrace::Completeness c = cutrace::completeness_of(l->trace);
      const cutrace::BufferHeader &h = l->trace.header;
      std::printf(
          "  launch %u: %zu rows of %u slots, fullest row attempted %u, %llu events dropped "
          "on %llu rows; %llu of %llu CTAs recorded (1 in %u)\n",
          l->launch_index, l->trace.rows.size(), h.max_events, most,
          (unsigned long long)c.dropped_events, (unsigned long long)c.rows_overflowed,
          (unsigned long long)h.recorded_ctas(), (unsigned long long)h.num_ctas(), h.cta_stride);
    }
    for (const cutrace::Row &row : l->trace.rows) {
      std::string role = row.label.substr(0, row.label.find('['));
      rows[role].insert(row.label);
      for (const cutrace::Slice &s : row.slices)
        ++names[role][s.name];
      for (const cutrace::Instant &i : row.instants)
        ++names[role][i.name];
    }
  }
  std::printf("%zu launches of %s\n", launches, argv[2]);
  for (const auto &[role, labels] : rows) {
    std::printf("  %s (%zu row labels):", role.c_str(), labels.size());
    for (const auto &[name, n] : names[role])
      std::printf(" %s=%llu", name.c_str(), (unsigned long long)n);
    std::printf("\n");
  }
  int status = 0;
  for (int i = per_launch ? 4 : 3; i < argc; ++i) {
    std::string want = argv[i];
    size_t eq = want.find('=');
    std::string role = want.substr(0, eq), name = want.substr(eq + 1);
    if (names[role][name] == 0) {
      std::printf("  MISSING: no %s in the %s rows\n", name.c_str(), role.c_str());
      status = 1;
    }
  }
  return status;
}
