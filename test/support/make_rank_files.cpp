// Writes the ranks of a synthetic job from one recorded run (rank_files.h), for merge tests and
// measurements of many ranks (test/cli/check_rank_merge_memory.sh):
//   make_rank_files RUN.ctrace OUT_DIR --ranks N [--per-host K] [--host-offset-ns NS]
//                   [--host-clock-error-ns NS]
// writes OUT_DIR/rank000.ctrace ...: rank r on host node<r/K> as local rank r%K (K = 8), host h's
// clock NS*h ahead of the recording host's (0), its error bound NS (none when not given).
#include "rank_files.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "make_rank_files: error: %s\nusage: make_rank_files RUN.ctrace OUT_DIR --ranks N "
               "[--per-host K] [--host-offset-ns NS] [--host-clock-error-ns NS]\n",
               why);
  std::exit(2);
}

long long number(int argc, char **argv, int &i) {
  if (i + 1 >= argc)
    usage((std::string(argv[i]) + " needs a number").c_str());
  char *end = nullptr;
  const long long v = std::strtoll(argv[++i], &end, 10);
  if (*end != '\0')
    usage((std::string("not a number: ") + argv[i]).c_str());
  return v;
}

std::string numbered(const char *prefix, int n, int width) {
  char text[32];
  std::snprintf(text, sizeof text, "%s%0*d", prefix, width, n);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    usage("a run file and an output folder are needed");
  long long ranks = 0, per_host = 8, offset = 0, error = -1;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ranks"))
      ranks = number(argc, argv, i);
    else if (!std::strcmp(argv[i], "--per-host"))
      per_host = number(argc, argv, i);
    else if (!std::strcmp(argv[i], "--host-offset-ns"))
      offset = number(argc, argv, i);
    else if (!std::strcmp(argv[i], "--host-clock-error-ns"))
      error = number(argc, argv, i);
    else
      usage((std::string("unknown option ") + argv[i]).c_str());
  }
  if (ranks < 1 || ranks > 100000 || per_host < 1)
    usage("--ranks must be 1 to 100000 and --per-host at least 1");
  cutrace::Expected<cutrace::Run> run = cutrace::read_run_file(argv[1]);
  if (!run || !run->problems.empty())
    usage((std::string(argv[1]) + ": " + (run ? run->problems.front() : run.error)).c_str());
  for (int r = 0; r < ranks; ++r) {
    cutrace::test_support::RankIdentity who;
    const int host = int(r / per_host);
    who.rank = r;
    who.local_rank = int(r % per_host);
    who.host = numbered("node", host, 2);
    who.pid = 10000 + uint64_t(r);
    who.host_clock_offset_ns = offset * host;
    if (error >= 0)
      who.host_clock_error_ns = uint64_t(error);
    const std::string path = std::string(argv[2]) + "/" + numbered("rank", r, 3) + ".ctrace";
    if (std::optional<std::string> err =
            cutrace::test_support::write_run(cutrace::test_support::as_rank(*run, who), path)) {
      std::fprintf(stderr, "make_rank_files: error: %s: %s\n", path.c_str(), err->c_str());
      return 1;
    }
  }
  return 0;
}
