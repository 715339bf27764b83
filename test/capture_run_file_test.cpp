// The rank a launcher gave the process reaches the run file's RUN section (docs/FORMAT.md, "Runs"):
// each variable set alone in this process, a run file's header written by the runtime's RunFile
// and read back through the run reader and decoder.
#include "capture/run_file.h"
#include "support/scratch_dir.h"

#include <cutrace/run_trace.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace cutrace;

const char *const kRankVariables[] = {
    "CUTRACE_RANK", "RANK",       "OMPI_COMM_WORLD_RANK",       "PMI_RANK",
    "SLURM_PROCID", "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};

// Clears every rank variable, then sets `set` (name, value).
void only(std::initializer_list<std::pair<const char *, const char *>> set) {
  for (const char *name : kRankVariables)
    ::unsetenv(name);
  for (const auto &[name, value] : set)
    ::setenv(name, value, 1);
}

struct Header {
  nlohmann::json run; // the RUN section as written
  RunProcess process; // as the decoder reads it
};

// A run file written by RunFile in a fresh folder (one device makes it), read back.
Header written_header() {
  const std::string dir = test_support::scratch_dir("cutrace_run_file_").string();
  std::string path;
  {
    RunFile file(dir, "all", "*");
    file.add_device(0, R"({"index":0,"name":"test","aligned":false})");
    path = file.finish(R"({"kernels":[]})");
  }
  Header h;
  Expected<Run> run = read_run_file(path);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return h;
  h.run = nlohmann::json::parse(run->run_json);
  Expected<RunTrace> trace = decode_run(*run, path);
  EXPECT_TRUE(trace) << trace.error;
  if (trace && trace->processes.size() == 1)
    h.process = trace->processes[0];
  return h;
}

struct Ranks {
  int rank, local_rank;
};

Ranks written_ranks() {
  const Header h = written_header();
  EXPECT_EQ(h.run.value("rank", -2), h.process.rank);
  EXPECT_EQ(h.run.value("local_rank", -2), h.process.local_rank);
  return {h.process.rank, h.process.local_rank};
}

// Each test starts from its own variables and leaves none set for the tests after it.
class RunFileRank : public ::testing::Test {
protected:
  void TearDown() override { only({}); }
};

TEST_F(RunFileRank, NoLauncherVariableWritesNoRank) {
  only({});
  const Ranks r = written_ranks();
  EXPECT_EQ(r.rank, -1);
  EXPECT_EQ(r.local_rank, -1);
}

// One test per variable: set alone, it is the rank the header carries.
class JobRankVariable : public RunFileRank, public ::testing::WithParamInterface<const char *> {};

TEST_P(JobRankVariable, AloneGivesTheJobRank) {
  only({{GetParam(), "13"}});
  const Ranks r = written_ranks();
  EXPECT_EQ(r.rank, 13);
  EXPECT_EQ(r.local_rank, -1) << "a job rank, not a local one";
}

INSTANTIATE_TEST_SUITE_P(RunFileRank, JobRankVariable,
                         ::testing::Values("CUTRACE_RANK", "RANK", "OMPI_COMM_WORLD_RANK",
                                           "PMI_RANK", "SLURM_PROCID"),
                         [](const auto &info) { return std::string(info.param); });

class LocalRankVariable : public RunFileRank, public ::testing::WithParamInterface<const char *> {};

TEST_P(LocalRankVariable, AloneGivesTheLocalRankNotTheJobRank) {
  only({{GetParam(), "5"}});
  const Ranks r = written_ranks();
  EXPECT_EQ(r.local_rank, 5);
  EXPECT_EQ(r.rank, -1) << "a local rank, not the job's";
}

INSTANTIATE_TEST_SUITE_P(RunFileRank, LocalRankVariable,
                         ::testing::Values("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "SLURM_LOCALID"),
                         [](const auto &info) { return std::string(info.param); });

TEST_F(RunFileRank, TorchrunsRankAndLocalRankAreBothKept) {
  only({{"RANK", "11"}, {"LOCAL_RANK", "3"}});
  const Ranks r = written_ranks();
  EXPECT_EQ(r.rank, 11);
  EXPECT_EQ(r.local_rank, 3);
}

// The innermost launcher's variable wins: CUTRACE_RANK, then RANK (torchrun under srun), the MPI
// ones, and SLURM_PROCID last (under mpirun inside a Slurm allocation it names a Slurm task).
TEST_F(RunFileRank, JobRankVariablesTakeTheDocumentedPrecedence) {
  const char *order[] = {"CUTRACE_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                         "SLURM_PROCID"};
  for (size_t first = 0; first < 5; ++first) {
    only({});
    for (size_t i = first; i < 5; ++i)
      ::setenv(order[i], std::to_string(100 + i).c_str(), 1);
    EXPECT_EQ(written_ranks().rank, int(100 + first)) << order[first] << " comes first";
  }
  only({{"LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "2"}, {"SLURM_LOCALID", "3"}});
  EXPECT_EQ(written_ranks().local_rank, 1);
  only({{"OMPI_COMM_WORLD_LOCAL_RANK", "2"}, {"SLURM_LOCALID", "3"}});
  EXPECT_EQ(written_ranks().local_rank, 2);
}

TEST_F(RunFileRank, AValueThatIsNotARankIsPassedOver) {
  for (const char *bad : {"", "-1", "3x", "x", "1073741824"}) {
    only({{"CUTRACE_RANK", bad}, {"RANK", "7"}});
    EXPECT_EQ(written_ranks().rank, 7) << "CUTRACE_RANK='" << bad << "'";
  }
}

TEST_F(RunFileRank, HeaderSaysTheHostClocksErrorOrThatItIsNotKnown) {
  only({});
  const Header h = written_header();
  ASSERT_TRUE(h.run.contains("host_clock_error_ns"));
  const nlohmann::json &e = h.run["host_clock_error_ns"];
  EXPECT_TRUE(e.is_null() || e.is_number_unsigned()) << e;
  EXPECT_EQ(h.process.host_clock_error_ns.has_value(), e.is_number_unsigned());
}

} // namespace

namespace {

// A folder that cannot be made (a file stands where it would go): recording stops, and the line
// that says so names CUTRACE_OUTPUT, where the folder came from.
TEST(RunFile, UnwritableOutputFolderNamesCutraceOutput) {
  const std::filesystem::path scratch = cutrace::test_support::scratch_dir("cutrace_run_file_");
  std::ofstream(scratch / "a_file") << "x";
  const std::string dir = (scratch / "a_file" / "debug").string();
  testing::internal::CaptureStderr();
  std::string path;
  {
    cutrace::RunFile file(dir, "all", "*");
    file.add_device(0, R"({"index":0,"name":"test","aligned":false})");
    path = file.finish(R"({"kernels":[]})");
  }
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(path, "");
  EXPECT_NE(said.find("cutrace: cannot create " + dir), std::string::npos) << said;
  EXPECT_NE(said.find("set CUTRACE_OUTPUT"), std::string::npos) << said;
}

} // namespace
