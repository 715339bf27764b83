// Rendering a finished run at exit (docs/launches.md, "At exit"), in the runtime that writes every
// format: the page and the JSON a background renderer writes are the bytes the program would have
// written before exiting, a placeholder holds the page's name meanwhile, and a file already there
// is never replaced. No GPU: the run is an H200 fixture; the renderer is waited for as this
// test's own descendant (a subreaper), never by the clock.
#include "capture/outputs.h"

#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(CUTRACE_TEST_DATA) + "/h200/runs/loop_1000_default.ctrace";

std::string contents(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

OutputFormats html_and_json() {
  OutputFormats f;
  f.html = f.json = true;
  return f;
}

void wait_for(std::optional<int> renderer) {
  ASSERT_TRUE(renderer.has_value());
  int status = 0;
  ASSERT_EQ(::waitpid(pid_t(*renderer), &status, 0), pid_t(*renderer));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

class RenderAtExit : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); // the renderer becomes ours to wait for
    dir_ = test_support::scratch_dir("cutrace_render_");
    run_ = (dir_ / "loop.4242.ctrace").string();
    fs::copy_file(kFixture, run_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string run_;
};

TEST_F(RenderAtExit, BackgroundOutputsAreTheBytesRenderedBeforeExit) {
  wait_for(detail::write_run_outputs(run_, html_and_json(), true));
  const std::string page = contents(dir_ / "loop.4242.html");
  const std::string json = contents(dir_ / "loop.4242.json");
  fs::rename(dir_ / "loop.4242.html", dir_ / "background.html");
  fs::rename(dir_ / "loop.4242.json", dir_ / "background.json");
  EXPECT_FALSE(detail::write_run_outputs(run_, html_and_json(), false)); // no renderer
  EXPECT_GT(page.size(), 100000u); // the timeline, not the placeholder
  EXPECT_EQ(page, contents(dir_ / "loop.4242.html"));
  EXPECT_EQ(json, contents(dir_ / "loop.4242.json"));
  EXPECT_EQ(page.find("cutrace is rendering"), std::string::npos);
}

TEST_F(RenderAtExit, APageAlreadyThereIsNeverReplaced) {
  std::ofstream(dir_ / "loop.4242.html") << "mine";
  wait_for(detail::write_run_outputs(run_, html_and_json(), true));
  EXPECT_EQ(contents(dir_ / "loop.4242.html"), "mine");
  EXPECT_NE(contents(dir_ / "loop.4242.json").find("\"launches\""), std::string::npos);
}

TEST_F(RenderAtExit, NothingToRenderStartsNoProcess) {
  OutputFormats ctrace_only;
  ctrace_only.ctrace = true;
  EXPECT_FALSE(detail::write_run_outputs(run_, ctrace_only, true));
  EXPECT_FALSE(fs::exists(dir_ / "loop.4242.html"));
}

} // namespace
} // namespace cutrace
