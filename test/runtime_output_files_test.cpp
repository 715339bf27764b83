// The output rules both tools share (cutrace/output_files.h, docs/cli.md "Outputs"), on real files
// in a scratch folder.
#include <cutrace/output_files.h>

#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using cutrace::OutputRefusal;

std::string contents(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputFiles, TemporaryNameFitsNameMaxForEveryTargetLength) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  for (size_t n : {1, 100, 245, 250, 255}) {
    const std::string temp =
        cutrace::temporary_name_beside((dir / std::string(n, 'a')).string(), "123456-7");
    EXPECT_LE(fs::path(temp).filename().string().size(), 255u) << n;
    EXPECT_EQ(fs::path(temp).parent_path(), dir) << n;
  }
}

TEST(OutputFiles, HardLinkOfAnInputIsTheInput) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  std::ofstream(dir / "in") << "x";
  fs::create_hard_link(dir / "in", dir / "link");
  auto clash = cutrace::find_output_clash({(dir / "in").string()}, {(dir / "link").string()});
  ASSERT_TRUE(clash);
  EXPECT_EQ(clash->why, OutputRefusal::input);
}

TEST(OutputFiles, NotYetExistingOutputNamedTwiceUnderTwoSpellingsIsRefused) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  auto clash = cutrace::find_output_clash({}, {(dir / "x").string(), (dir / "." / "x").string()});
  ASSERT_TRUE(clash);
  EXPECT_EQ(clash->why, OutputRefusal::twice);
  EXPECT_EQ(clash->other, 0u);
}

TEST(OutputFiles, NothingIsInPlaceUntilCommitAndAFailureLeavesNothing) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  std::ofstream(dir / "old") << "old";
  {
    cutrace::OutputSet set;
    ASSERT_FALSE(set.add((dir / "old").string(), "new"));
    EXPECT_EQ(contents(dir / "old"), "old");
    ASSERT_TRUE(set.add((dir / std::string(300, 'n')).string(), "x")); // past NAME_MAX
  }
  EXPECT_EQ(contents(dir / "old"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(OutputFiles, LinkToARegularFileStaysALink) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  std::ofstream(dir / "target") << "old";
  fs::create_symlink("target", dir / "link");
  cutrace::OutputSet set;
  ASSERT_FALSE(set.add((dir / "link").string(), "new"));
  ASSERT_FALSE(set.commit());
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(contents(dir / "target"), "new");
}

// Runs `body` in a child process; its wait status.
template <class Body> int in_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

size_t files_in(const fs::path &dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(OutputFiles, SignalBetweenWritingAndRenamingLeavesNoTemporaryFile) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const fs::path dir = cutrace::test_support::scratch_dir("out_");
    const int status = in_child([&] {
      cutrace::OutputSet set;
      if (set.add((dir / "out.txt").string(), "x") || files_in(dir) != 1)
        ::_exit(3); // the temporary file must exist before the signal
      std::raise(sig);
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << sig << ": the signal still ends the process";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(files_in(dir), 0u) << sig << ": neither the output nor its temporary file";
  }
}

TEST(OutputFiles, ProgramsOwnSignalHandlerIsLeftAlone) {
  const fs::path dir = cutrace::test_support::scratch_dir("out_");
  const int status = in_child([&] {
    std::signal(SIGTERM, [](int) { ::_exit(7); });
    cutrace::OutputSet set;
    if (set.add((dir / "out.txt").string(), "x"))
      ::_exit(3);
    std::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7) << "the program's handler ran, not ours";
  EXPECT_EQ(files_in(dir), 1u) << "its handler did not remove the temporary file, as ours would";
}

} // namespace
