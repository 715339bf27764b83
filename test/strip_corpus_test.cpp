// Strip is exact, as properties over the whole corpus (docs/strip.md), and every rule of docs/annotations.md is
// diagnosed (test/inputs/errors, see its README.md for the EXPECT convention).
//
// test/inputs/strip/X.cu is an annotated file, X.plain.cu the file its author had before
// annotating it, written by hand: strip(X.cu) must equal it byte for byte.
//
// Compile definitions: CUTRACE_REWRITE_BIN (path of trace-rewrite), CUTRACE_TEST_INPUTS (path of
// test/inputs), CUTRACE_NVCC and CUTRACE_RUNTIME_INCLUDE (to compile traced positive controls).
// The environment variables of the first three names override them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "support/tree_paths.h"

#ifndef CUTRACE_NVCC
#define CUTRACE_NVCC ""
#endif

extern char **environ;

namespace {

namespace fs = std::filesystem;

std::string setting(const char *env_name, const char *compiled_default) {
  const char *v = std::getenv(env_name);
  return v != nullptr && *v != '\0' ? v : compiled_default;
}

std::string rewriteBin() { return setting("CUTRACE_REWRITE_BIN", CUTRACE_REWRITE_BIN); }
fs::path inputsDir() { return setting("CUTRACE_TEST_INPUTS", CUTRACE_TEST_INPUTS); }

std::optional<std::string> readBytes(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct RunResult {
  int exit_status = -1; // -1: did not start or did not exit normally
  std::string out;
  std::string err;
};

// A fresh directory per test, removed at the end of the test.
class ScratchDir {
public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "cutrace-strip-corpus.XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) {
      path_ = tmpl;
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) {
      fs::remove_all(path_, ec);
    }
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

// Runs argv with stdout/stderr captured through files (no pipe deadlock on large output).
RunResult run(const std::vector<std::string> &argv, const fs::path &scratch) {
  RunResult r;
  const fs::path out_file = scratch / ".stdout";
  const fs::path err_file = scratch / ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char *> args;
  for (const std::string &a : argv) {
    args.push_back(const_cast<char *>(a.c_str()));
  }
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    r.exit_status = WEXITSTATUS(status);
  }
  r.out = readBytes(out_file).value_or("");
  r.err += readBytes(err_file).value_or("");
  fs::remove(out_file);
  fs::remove(err_file);
  return r;
}

std::string describe(const RunResult &r) {
  return "exit status " + std::to_string(r.exit_status) + "\n--- stderr ---\n" + r.err;
}

// The one place that knows how trace-rewrite is invoked.
std::vector<std::string> tracedCommand(const fs::path &in, const fs::path &out) {
  return {rewriteBin(), "--traced", in.string(), "-o", out.string()};
}

std::vector<std::string> stripCommand(const fs::path &in, const fs::path &out) {
  return {rewriteBin(), in.string(), "-o", out.string()};
}
std::vector<std::string> verifyCommand(const fs::path &in) {
  return {rewriteBin(), "--verify-strip", in.string()};
}
std::vector<std::string> verifyAgainstCommand(const fs::path &in, const fs::path &plain) {
  return {rewriteBin(), "--verify-strip", in.string(), "--against", plain.string()};
}

// Strips `in` into `scratch/<name>`; on failure records why and returns nullopt.
std::optional<std::string> strip(const fs::path &in, const fs::path &scratch,
                                 const std::string &name) {
  const fs::path out = scratch / name;
  const RunResult r = run(stripCommand(in, out), scratch);
  if (r.exit_status != 0) {
    ADD_FAILURE() << "strip of " << in << " failed: " << describe(r);
    return std::nullopt;
  }
  std::optional<std::string> bytes = readBytes(out);
  if (!bytes) {
    ADD_FAILURE() << "strip of " << in << " exited 0 but wrote no " << out;
  }
  return bytes;
}

// Where the strings differ first, with a little context, for readable failures.
std::string firstDifference(const std::string &want, const std::string &got) {
  const size_t n = std::min(want.size(), got.size());
  size_t i = 0;
  while (i < n && want[i] == got[i]) {
    ++i;
  }
  const size_t line = 1 + std::count(want.begin(), want.begin() + i, '\n');
  const size_t from = i < 40 ? 0 : i - 40;
  std::ostringstream os;
  os << "first difference at byte " << i << " (line " << line << "); sizes " << want.size()
     << " (expected) vs " << got.size() << " (got)\nexpected: ...";
  os << ::testing::PrintToString(want.substr(from, 80)) << "\ngot:      ...";
  os << ::testing::PrintToString(got.substr(from, 80));
  return os.str();
}

std::string testName(const fs::path &file) {
  std::string stem = file.filename().string();
  stem = stem.substr(0, stem.size() - std::string(".cu").size());
  for (char &c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      c = '_';
    }
  }
  return stem;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every X.cu in dir (X.plain.cu excluded), sorted; when `with_twin`, only those with X.plain.cu.
std::vector<fs::path> listInputs(const fs::path &dir, bool with_twin) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !endsWith(name, ".cu") || endsWith(name, ".plain.cu")) {
      continue;
    }
    if (with_twin && !fs::exists(dir / (name.substr(0, name.size() - 3) + ".plain.cu"))) {
      continue;
    }
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

fs::path twinOf(const fs::path &annotated) {
  const std::string s = annotated.string();
  return s.substr(0, s.size() - 3) + ".plain.cu";
}

std::string nameOf(const ::testing::TestParamInfo<fs::path> &info) { return testName(info.param); }

// ---------------------------------------------------------------------------------------------
// Strip pairs

class Strip : public ::testing::TestWithParam<fs::path> {
protected:
  ScratchDir scratch_;
};

TEST_P(Strip, MatchesNeverAnnotatedTwin) {
  ASSERT_FALSE(scratch_.path().empty());
  const std::optional<std::string> plain = readBytes(twinOf(GetParam()));
  ASSERT_TRUE(plain.has_value());
  const std::optional<std::string> stripped = strip(GetParam(), scratch_.path(), "stripped.cu");
  ASSERT_TRUE(stripped.has_value());
  EXPECT_TRUE(*stripped == *plain) << firstDifference(*plain, *stripped);
}

TEST_P(Strip, IsIdempotent) {
  ASSERT_FALSE(scratch_.path().empty());
  const std::optional<std::string> once = strip(GetParam(), scratch_.path(), "once.cu");
  ASSERT_TRUE(once.has_value());
  const std::optional<std::string> twice =
      strip(scratch_.path() / "once.cu", scratch_.path(), "twice.cu");
  ASSERT_TRUE(twice.has_value());
  EXPECT_TRUE(*twice == *once) << firstDifference(*once, *twice);
}

TEST_P(Strip, PlainFileIsUnchanged) {
  ASSERT_FALSE(scratch_.path().empty());
  const fs::path plain_path = twinOf(GetParam());
  const std::optional<std::string> plain = readBytes(plain_path);
  ASSERT_TRUE(plain.has_value());
  const std::optional<std::string> stripped = strip(plain_path, scratch_.path(), "plain.cu");
  ASSERT_TRUE(stripped.has_value());
  EXPECT_TRUE(*stripped == *plain) << firstDifference(*plain, *stripped);
}

TEST_P(Strip, VerifyStripAcceptsAgainstTwin) {
  ASSERT_FALSE(scratch_.path().empty());
  const RunResult r = run(verifyAgainstCommand(GetParam(), twinOf(GetParam())), scratch_.path());
  EXPECT_EQ(r.exit_status, 0) << describe(r) << "\n--- stdout ---\n" << r.out;
}

// Empty instantiation prefix: tests read Strip.MatchesNeverAnnotatedTwin/<X>.
INSTANTIATE_TEST_SUITE_P(, Strip, ::testing::ValuesIn(listInputs(inputsDir() / "strip", true)),
                         nameOf);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Strip);

TEST(StripCorpus, HasAtLeastThirtyPairsAndSixRealisticKernels) {
  const std::vector<fs::path> pairs = listInputs(inputsDir() / "strip", true);
  EXPECT_GE(pairs.size(), 36u) << "in " << inputsDir() / "strip";
  const auto real = std::count_if(pairs.begin(), pairs.end(), [](const fs::path &p) {
    return p.filename().string().rfind("real_", 0) == 0;
  });
  EXPECT_GE(real, 6);
  EXPECT_EQ(listInputs(inputsDir() / "strip", false).size(), pairs.size())
      << "every annotated file needs its .plain.cu twin";
}

// ---------------------------------------------------------------------------------------------
// Negative inputs: `// EXPECT: <line>:<col>: <message>` or `// EXPECT: ok`

struct Expectation {
  bool ok = false;
  std::string location; // "<line>:<col>"
  std::string message;
};

std::optional<Expectation> readExpectation(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  static const std::regex error_re(R"(^// EXPECT: ([0-9]+:[0-9]+): (.+?)\r?$)");
  static const std::regex ok_re(R"(^// EXPECT: ok\r?$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, ok_re)) {
      return Expectation{true, "", ""};
    }
    if (std::regex_match(line, m, error_re)) {
      return Expectation{false, m[1].str(), m[2].str()};
    }
  }
  return std::nullopt;
}

class VerifyStrip : public ::testing::TestWithParam<fs::path> {
protected:
  ScratchDir scratch_;
};

TEST_P(VerifyStrip, RejectsWithDiagnostic) {
  ASSERT_FALSE(scratch_.path().empty());
  const std::optional<Expectation> want = readExpectation(GetParam());
  ASSERT_TRUE(want.has_value()) << GetParam() << " has no // EXPECT: line";

  const RunResult verify = run(verifyCommand(GetParam()), scratch_.path());
  if (want->ok) {
    EXPECT_EQ(verify.exit_status, 0) << "positive control must pass: " << describe(verify);
    return;
  }
  EXPECT_EQ(verify.exit_status, 1) << describe(verify);
  const std::string diagnostic =
      GetParam().filename().string() + ":" + want->location + ": error: " + want->message;
  EXPECT_TRUE(verify.err.find(diagnostic) != std::string::npos)
      << "expected stderr to contain\n  " << diagnostic << "\n"
      << describe(verify);

  // The other modes enforce the rule too and write nothing. Strip is lexical (it must work on
  // files Clang cannot parse), so rules that need the parse are enforced by --traced instead;
  // such inputs say `// CHECKED-BY: parse`.
  const fs::path out = scratch_.path() / "out.cu";
  const bool needs_parse = readBytes(GetParam())->find("// CHECKED-BY: parse") != std::string::npos;
  const RunResult other =
      run(needs_parse ? tracedCommand(GetParam(), out) : stripCommand(GetParam(), out),
          scratch_.path());
  EXPECT_EQ(other.exit_status, 1) << describe(other);
  EXPECT_NE(other.err.find(diagnostic), std::string::npos) << describe(other);
  EXPECT_FALSE(fs::exists(out)) << "a failing run must not write " << out;
  EXPECT_FALSE(fs::exists(scratch_.path() / (GetParam().stem().string() + ".trace_map.h")));
}

INSTANTIATE_TEST_SUITE_P(, VerifyStrip,
                         ::testing::ValuesIn(listInputs(inputsDir() / "errors", false)), nameOf);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VerifyStrip);

// Positive controls (`// EXPECT: ok`) are accepted by --traced as well, and what it writes
// compiles: an accepted payload, lead or condition is code the recording build runs.
std::vector<fs::path> acceptedInputs() {
  std::vector<fs::path> files;
  for (const fs::path &file : listInputs(inputsDir() / "errors", false)) {
    const std::optional<Expectation> want = readExpectation(file);
    if (want && want->ok) {
      files.push_back(file);
    }
  }
  return files;
}

class AcceptedInput : public ::testing::TestWithParam<fs::path> {
protected:
  ScratchDir scratch_;
};

TEST_P(AcceptedInput, TracedOutputCompilesWithNvcc) {
  ASSERT_FALSE(scratch_.path().empty());
  const fs::path traced = scratch_.path() / "out.cu";
  const RunResult rewrite = run(tracedCommand(GetParam(), traced), scratch_.path());
  ASSERT_EQ(rewrite.exit_status, 0) << describe(rewrite);
  ASSERT_TRUE(fs::exists(traced)) << "--traced exited 0 but wrote no " << traced;
  const std::string nvcc = setting("CUTRACE_NVCC", CUTRACE_NVCC);
  if (nvcc.empty() || !fs::exists(nvcc)) {
    GTEST_SKIP() << "no nvcc to compile " << traced;
  }
  const RunResult compile =
      run({nvcc, "-std=c++17", "-arch=sm_90", "-I", CUTRACE_RUNTIME_INCLUDE, "-c", traced.string(),
           "-o", (scratch_.path() / "out.o").string()},
          scratch_.path());
  EXPECT_EQ(compile.exit_status, 0) << describe(compile) << compile.out;
}

INSTANTIATE_TEST_SUITE_P(, AcceptedInput, ::testing::ValuesIn(acceptedInputs()), nameOf);

// ---------------------------------------------------------------------------------------------
// One set of rules: the pre-commit check (--verify-strip) and the build (--traced) give every
// refusal input the same verdict, with the same first error, and accept what the other accepts;
// the rules of the twin alone (recursion through traced code, a group declared two ways, a jump
// over a range's end) included: --verify-strip plans the traced build too.

// The first `file:line:col: error: ...` line of a run's stderr, or "" when there is none.
std::string firstError(const std::string &err) {
  static const std::regex error_line(R"(^[^ \n]+:[0-9]+:[0-9]+: error: [^\n]*)",
                                     std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(err, m, error_line))
    return "";
  // The pass that found it is not part of the verdict.
  static const std::regex pass_suffix(R"( \[(host|device[^\]]*) pass\]$)");
  return std::regex_replace(m[0].str(), pass_suffix, "");
}

std::vector<fs::path> refusalAndTracedInputs() {
  std::vector<fs::path> files = listInputs(inputsDir() / "errors", false);
  for (const fs::path &file : listInputs(inputsDir() / "traced", false))
    if (!endsWith(file.string(), ".traced.cu"))
      files.push_back(file);
  return files;
}

class OneSetOfRules : public ::testing::TestWithParam<fs::path> {
protected:
  ScratchDir scratch_;
};

TEST_P(OneSetOfRules, PreCommitCheckAndBuildGiveTheSameVerdict) {
  ASSERT_FALSE(scratch_.path().empty());
  const RunResult verify = run(verifyCommand(GetParam()), scratch_.path());
  const RunResult traced = run(tracedCommand(GetParam(), scratch_.path() / "out.cu"), scratch_.path());
  EXPECT_EQ(verify.exit_status == 0, traced.exit_status == 0)
      << "--verify-strip: " << describe(verify) << "\n--traced: " << describe(traced);
  if (verify.exit_status != 0 && traced.exit_status != 0)
    EXPECT_EQ(firstError(verify.err), firstError(traced.err));
}

INSTANTIATE_TEST_SUITE_P(, OneSetOfRules, ::testing::ValuesIn(refusalAndTracedInputs()), nameOf);

} // namespace
