// examples/multifile as recorded on an H200 with no host-code edits (examples/multifile/
// run_on_h200.sh; the files in test/data/h200/multifile/). Every launch form records its kernel's
// events, and the kernel handed to the library launcher runs unrecorded and still computes the
// right result. Expected counts come from examples/multifile/main.cu and kernels.cu, tiles.cuh:
//   row_sum   <<<64, 128>>>   group "row": slice "sum" and instant "stored" per CTA
//   block_max <<<16, 256>>>   group "tile": slice "max" and instant "tile_done" per CTA
//   scale     cudaLaunchKernelEx, 16 CTAs: slice "scale", instant "scaled" per CTA
//   square    function pointer, 16 CTAs: slice "square" per CTA
//   grid_sum  cooperative, 8 CTAs: slice "partial", instant "synced" per CTA; "total" in CTA 0
//   iota      macro, 4 CTAs: instant "iota" per CTA
//   saxpy     library launcher: no file
#include <cutrace/ctrace.h>
#include <cutrace/decode.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/multifile";

bool fixturePresent() { return std::filesystem::is_directory(kDir); }

#define SKIP_WITHOUT_FIXTURE()                                                                     \
  if (!fixturePresent())                                                                           \
  GTEST_SKIP() << kDir << " does not exist yet: record it with examples/multifile/run_on_h200.sh"

Trace load(const std::string &kernel) {
  Expected<Ctrace> raw = read_ctrace_file(kDir + "/" + kernel + ".ctrace");
  EXPECT_TRUE(raw) << kernel << ": " << raw.error;
  if (!raw)
    return {};
  Expected<Trace> t = decode_ctrace(*raw);
  EXPECT_TRUE(t) << kernel << ": " << t.error;
  return t ? *t : Trace{};
}

std::string text(const std::string &name) {
  std::ifstream in(kDir + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Events named `name` in CTA `cta` (slices and instants together).
size_t events(const Trace &t, uint32_t cta, const std::string &name) {
  size_t n = 0;
  for (const Row &r : t.rows)
    if (r.cta == cta) {
      for (const Slice &s : r.slices)
        n += s.name == name;
      for (const Instant &i : r.instants)
        n += i.name == name;
    }
  return n;
}

struct Expectation {
  const char *kernel;
  uint32_t ctas;
  std::vector<std::string> per_cta; // names that occur exactly once in every CTA
};

const Expectation kRecorded[] = {
    {"row_sum", 64, {"sum", "stored"}},     {"block_max", 16, {"max", "tile_done"}},
    {"scale", 16, {"scale", "scaled"}},     {"square", 16, {"square"}},
    {"grid_sum", 8, {"partial", "synced"}}, {"iota", 4, {"iota"}},
};

TEST(MultifileFixture, EveryLaunchFormRecordsEveryEventOfEveryCta) {
  SKIP_WITHOUT_FIXTURE();
  for (const Expectation &e : kRecorded) {
    Trace t = load(e.kernel);
    EXPECT_TRUE(t.ok()) << e.kernel;
    for (uint32_t cta = 0; cta < e.ctas; ++cta)
      for (const std::string &name : e.per_cta)
        EXPECT_EQ(events(t, cta, name), 1u) << e.kernel << " CTA " << cta << " " << name;
    EXPECT_EQ(events(t, e.ctas, e.per_cta[0]), 0u) << e.kernel << ": a CTA past the grid";
  }
}

TEST(MultifileFixture, CooperativeTotalRangeOnlyInCtaZero) {
  SKIP_WITHOUT_FIXTURE();
  Trace t = load("grid_sum");
  EXPECT_EQ(events(t, 0, "total"), 1u);
  for (uint32_t cta = 1; cta < 8; ++cta)
    EXPECT_EQ(events(t, cta, "total"), 0u) << cta;
}

TEST(MultifileFixture, LibraryLauncherRunsUnrecordedAndCorrect) {
  SKIP_WITHOUT_FIXTURE();
  EXPECT_FALSE(std::filesystem::exists(kDir + "/saxpy.ctrace"));
  EXPECT_NE(text("stdout_traced.txt").find("PASS saxpy"), std::string::npos);
}

TEST(MultifileFixture, TracedAndUntracedRunsPassEveryCheck) {
  SKIP_WITHOUT_FIXTURE();
  for (const char *run : {"stdout_traced.txt", "stdout_cutrace0.txt"}) {
    const std::string out = text(run);
    EXPECT_NE(out.find("multifile: traced build"), std::string::npos) << run;
    EXPECT_NE(out.find("multifile: 0 failure(s)"), std::string::npos) << run << ":\n" << out;
    EXPECT_EQ(out.find("FAIL"), std::string::npos) << run << ":\n" << out;
  }
}

} // namespace
} // namespace cutrace
