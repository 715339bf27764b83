// The parse cache (rewriter/model/PreludeCache.h, docs/cli.md "The parse cache"): a parse that
// reads the precompiled toolchain headers sees what a parse of the headers themselves sees, a
// changed, broken or unreadable entry costs nothing but time, and the folder stays bounded.
#include "model/PreludeCache.h"
#include "model/SourceModel.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

/// A fresh cache folder for one test, put back to what the environment said at the end.
class PreludeCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    Root = fs::temp_directory_path() /
           ("cutrace_prelude_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(Root);
    fs::create_directories(Root);
    for (const char *Name : {"CUTRACE_CACHE_DIR", "CUTRACE_PARSE_CACHE"})
      if (const char *V = std::getenv(Name))
        Saved.emplace_back(Name, V);
    setenv("CUTRACE_CACHE_DIR", Root.c_str(), 1);
    unsetenv("CUTRACE_PARSE_CACHE");
  }
  void TearDown() override {
    unsetenv("CUTRACE_CACHE_DIR");
    unsetenv("CUTRACE_PARSE_CACHE");
    for (auto &[Name, Value] : Saved)
      setenv(Name.c_str(), Value.c_str(), 1);
    fs::remove_all(Root);
  }

  fs::path Root;
  std::vector<std::pair<std::string, std::string>> Saved;

  fs::path dir() const { return Root / "prelude"; }
  std::vector<fs::path> withExtension(const std::string &Ext) const {
    std::vector<fs::path> Found;
    if (fs::exists(dir()))
      for (const auto &E : fs::directory_iterator(dir()))
        if (E.path().extension() == Ext)
          Found.push_back(E.path());
    return Found;
  }
  fs::path write(const std::string &Name, const std::string &Text) const {
    fs::path P = Root / Name;
    std::ofstream(P) << Text;
    return P;
  }
};

std::string input(const char *Dir, const char *Name) {
  return (fs::path(CUTRACE_TEST_INPUTS) / Dir / Name).string();
}

/// What a parse found, as text a test can compare: diagnostics, annotation names and offsets,
/// kernels, launches and function bodies.
std::string summary(const ParseOutcome &P) {
  std::string S = "ran=" + std::to_string(P.Ran) + " " + P.FailureReason + "\n";
  for (const ClangDiagnostic &D : P.Diagnostics)
    S += "diag " + D.Location + " " + D.Message + "\n";
  for (const AnnotationUse &U : P.Model.Uses)
    S += "use " + std::to_string(U.MacroOffset) + " " + U.FunctionName + " " +
         std::to_string(U.Block.Begin) + " " + std::to_string(U.Problems.size()) + "\n";
  for (const KernelDecl &K : P.Model.Kernels)
    S += "kernel " + K.Name + "\n";
  for (const KernelDecl &K : P.Model.Helpers)
    S += "helper " + K.Name + "\n";
  S += "launches " + std::to_string(P.Model.Launches.size()) + "\n";
  for (const Span &B : P.Model.FunctionBodies)
    S += "body " + std::to_string(B.Begin) + "-" + std::to_string(B.End) + "\n";
  S += "headers " + std::to_string(P.Headers.size()) + " traced-macro " +
       std::to_string(P.TestsTracedMacro) + "\n";
  return S;
}

ParseOutcome parseWithoutCache(const std::string &File, const compat::ParseOptions &Options,
                               compat::CudaPass Pass) {
  setenv("CUTRACE_PARSE_CACHE", "0", 1);
  ParseOutcome P = parseSource(File, Options, Pass);
  unsetenv("CUTRACE_PARSE_CACHE");
  return P;
}

TEST_F(PreludeCacheTest, ParsesReadingTheCacheFindWhatParsesWithoutItFind) {
  for (const char *Name : {"callee_group_in_loop.cu", "helper_recursion.cu", "template_kernel.cu"})
    for (compat::CudaPass Pass : {compat::CudaPass::Host, compat::CudaPass::Device}) {
      std::string File = input("traced", Name);
      if (!fs::exists(File))
        continue;
      compat::ParseOptions Options;
      Options.Traced = true;
      std::string Expected = summary(parseWithoutCache(File, Options, Pass));
      EXPECT_EQ(summary(parseSource(File, Options, Pass)), Expected) << Name << " (cold)";
      EXPECT_EQ(summary(parseSource(File, Options, Pass)), Expected) << Name << " (warm)";
    }
  // One entry per distinct command: the host pass and the device pass, traced.
  EXPECT_EQ(withExtension(".pch").size(), 2u);
  EXPECT_EQ(withExtension(".inputs").size(), 2u);
}

TEST_F(PreludeCacheTest, AParseRecoveringFromAnErrorReadsThePreludeSafely) {
  // A fuzzer's mutation of a traced input, 'vokiid' for 'void': with a prelude written with
  // function bodies skipped, Clang 19 read past a declaration's attributes (AddressSanitizer,
  // use-after-poison in ASTDeclReader) while this parse recovered from the error.
  std::ifstream In(input("traced", "callee_groups_template_kernel.cu"));
  std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  size_t At = Text.find(" void pipeline(");
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, 5, " vokiid");
  std::string File = write("typo_recovery.cu", Text).string();
  for (compat::CudaPass Pass : {compat::CudaPass::Host, compat::CudaPass::Device}) {
    compat::ParseOptions Options;
    Options.Traced = true;
    std::string Expected = summary(parseWithoutCache(File, Options, Pass));
    EXPECT_NE(Expected.find("unknown type name 'vokiid'"), std::string::npos) << Expected;
    EXPECT_EQ(summary(parseSource(File, Options, Pass)), Expected) << "cold";
    EXPECT_EQ(summary(parseSource(File, Options, Pass)), Expected) << "warm";
  }
}

TEST_F(PreludeCacheTest, NothingIsWrittenWhenTheCacheIsOff) {
  ParseOutcome P = parseWithoutCache(input("traced", "callee_group_in_loop.cu"),
                                     compat::ParseOptions(), compat::CudaPass::Host);
  EXPECT_TRUE(P.Ran) << P.FailureReason;
  EXPECT_FALSE(fs::exists(dir()));
}

TEST_F(PreludeCacheTest, MacrosOfTheCommandNameEntriesOfTheirOwn) {
  compat::ParseOptions Options;
  std::string File = input("traced", "callee_group_in_loop.cu");
  ASSERT_TRUE(parseSource(File, Options, compat::CudaPass::Host).Ran);
  Options.ExtraArgs = {"-DCUDA_NO_HALF"};
  ASSERT_TRUE(parseSource(File, Options, compat::CudaPass::Host).Ran);
  EXPECT_EQ(withExtension(".pch").size(), 2u);
}

TEST_F(PreludeCacheTest, AUsersForcedIncludeIsReadOnceAfterThePrelude) {
  // No include guard: read twice, its definition would be an error.
  fs::path Forced = write("forced.h", "int forced_once = 1;\n#define FORCED_VALUE 3\n");
  fs::path File = write("uses_forced.cu", "__global__ void k(int *p) { *p = FORCED_VALUE + "
                                          "forced_once; }\n");
  compat::ParseOptions Options;
  Options.ExtraArgs = {"-include", Forced.string()};
  for (int Round = 0; Round < 2; ++Round) {
    ParseOutcome P = parseSource(File.string(), Options, compat::CudaPass::Host);
    EXPECT_TRUE(P.Ran) << P.FailureReason;
    EXPECT_EQ(P.errorCount(), 0u) << summary(P);
  }
  EXPECT_EQ(withExtension(".pch").size(), 1u);
}

TEST_F(PreludeCacheTest, IncludeFoldersShareAnEntryUnlessTheyHoldAToolchainHeaderOfTheirOwn) {
  std::string File = input("traced", "callee_group_in_loop.cu");
  compat::ParseOptions Options;
  ASSERT_TRUE(parseSource(File, Options, compat::CudaPass::Host).Ran);
  fs::create_directories(Root / "plain");
  Options.ExtraArgs = {"-I", (Root / "plain").string(), "-isystem" + (Root / "plain").string()};
  ASSERT_TRUE(parseSource(File, Options, compat::CudaPass::Host).Ran);
  EXPECT_EQ(withExtension(".pch").size(), 1u);
  // A folder with its own cuda_runtime.h (CUDA's, marked), which the CUDA wrapper looks up
  // there first: the parse must read it, as Clang
  // without the cache does.
  fs::create_directories(Root / "own");
  {
    std::ifstream Real("/usr/local/cuda/include/cuda_runtime.h");
    ASSERT_TRUE(Real.good());
    std::ofstream Copy(Root / "own" / "cuda_runtime.h");
    Copy << Real.rdbuf() << "\n#define CUTRACE_TEST_OWN_RUNTIME 1\n";
  }
  fs::path Main = write("reads_own.cu", "#include <cuda_runtime.h>\n"
                                        "#ifndef CUTRACE_TEST_OWN_RUNTIME\n"
                                        "#error the folder's own header was not read\n"
                                        "#endif\n__global__ void k() {}\n");
  Options.ExtraArgs = {"-I" + (Root / "own").string()};
  for (int Round = 0; Round < 2; ++Round) {
    ParseOutcome P = parseSource(Main.string(), Options, compat::CudaPass::Host);
    EXPECT_TRUE(P.Ran) << P.FailureReason;
    EXPECT_EQ(P.errorCount(), 0u) << summary(P);
  }
}

TEST_F(PreludeCacheTest, ABrokenHeaderInTheCacheIsParsedAroundAndTheResultUnchanged) {
  std::string File = input("traced", "callee_group_in_loop.cu");
  compat::ParseOptions Options;
  std::string Expected = summary(parseWithoutCache(File, Options, compat::CudaPass::Device));
  ASSERT_TRUE(parseSource(File, Options, compat::CudaPass::Device).Ran);
  std::vector<fs::path> Headers = withExtension(".pch");
  ASSERT_EQ(Headers.size(), 1u);
  std::ofstream(Headers.front(), std::ios::trunc) << "not a precompiled header";
  EXPECT_EQ(summary(parseSource(File, Options, compat::CudaPass::Device)), Expected);
  // Read from the cache, the broken header is removed, and the next parse writes it anew.
  EXPECT_FALSE(fs::exists(Headers.front()));
  EXPECT_TRUE(withExtension(".failed").empty());
  EXPECT_EQ(summary(parseSource(File, Options, compat::CudaPass::Device)), Expected);
  EXPECT_TRUE(fs::exists(Headers.front()));
}

TEST_F(PreludeCacheTest, AnEntryThisRunWroteAndCouldNotReadIsNotTriedAgain) {
  fs::create_directories(dir());
  fs::path Header = write("read.h", "int a;\n");
  struct stat S {};
  stat(Header.c_str(), &S);
  prelude::Entry E = prelude::entryFor(dir().string(), {"clang++", "-DX"});
  std::ofstream(E.Pch) << "header";
  prelude::InputStamp Stamp{Header.string(), static_cast<int64_t>(S.st_mtime),
                            static_cast<uint64_t>(S.st_size)};
  ASSERT_TRUE(prelude::record(E, {{Stamp}, {}}, /*Built=*/true));
  prelude::discard(E, /*KeepAsFailed=*/true);
  EXPECT_FALSE(fs::exists(E.Pch));
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Failed);
  std::ofstream(Header, std::ios::app) << "int b;\n";
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Missing);
}

TEST_F(PreludeCacheTest, AnErrorInTheFileIsReportedAsWithoutTheCache) {
  fs::path File = write("broken.cu", "#include \"no_such_header.h\"\n__global__ void k() {}\n");
  std::string Expected =
      summary(parseWithoutCache(File.string(), compat::ParseOptions(), compat::CudaPass::Host));
  for (int Round = 0; Round < 2; ++Round)
    EXPECT_EQ(summary(parseSource(File.string(), compat::ParseOptions(), compat::CudaPass::Host)),
              Expected);
}

TEST_F(PreludeCacheTest, AnUnwritableFolderOnlyCostsTime) {
  fs::path Blocker = write("not_a_folder", "");
  setenv("CUTRACE_CACHE_DIR", Blocker.c_str(), 1); // <file>/prelude cannot be made
  ParseOutcome P = parseSource(input("traced", "callee_group_in_loop.cu"), compat::ParseOptions(),
                               compat::CudaPass::Host);
  EXPECT_TRUE(P.Ran) << P.FailureReason;
}

TEST_F(PreludeCacheTest, AnEntryIsUsableWhileWhatItReadIsUnchanged) {
  fs::create_directories(dir());
  fs::path Header = write("toolchain.h", "int a;\n");
  prelude::Entry E = prelude::entryFor(dir().string(), {"clang++", "-DA"});
  EXPECT_NE(E.Pch, prelude::entryFor(dir().string(), {"clang++", "-DB"}).Pch);
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Missing);
  std::ofstream(E.Pch) << "header";
  auto Stamp = [&] {
    struct stat S {};
    stat(Header.c_str(), &S);
    return prelude::InputStamp{Header.string(), static_cast<int64_t>(S.st_mtime),
                               static_cast<uint64_t>(S.st_size)};
  };
  ASSERT_TRUE(prelude::record(E, {{Stamp()}, {"looked_up.h", "sub/other.h"}}, /*Built=*/true));
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Usable);
  // A folder of the user's that holds a name the prelude looked up would be read instead.
  fs::create_directories(Root / "user" / "sub");
  EXPECT_EQ(prelude::lookup(E, {(Root / "user").string()}), prelude::State::Usable);
  write("user/sub/other.h", "");
  EXPECT_EQ(prelude::lookup(E, {(Root / "user").string()}), prelude::State::Shadowed);
  std::ofstream(Header, std::ios::app) << "int b;\n"; // a new size
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Missing);
  fs::remove(E.Pch);
  ASSERT_TRUE(prelude::record(E, {{Stamp()}, {}}, /*Built=*/false));
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Failed);
  fs::remove(Header);
  EXPECT_EQ(prelude::lookup(E, {}), prelude::State::Missing);
}

TEST_F(PreludeCacheTest, TheFolderKeepsTheHeadersLastUsed) {
  fs::create_directories(dir());
  auto Now = fs::file_time_type::clock::now();
  std::vector<prelude::Entry> Entries;
  for (unsigned I = 0; I < prelude::DefaultEntries + 4; ++I) {
    prelude::Entry E = prelude::entryFor(dir().string(), {"clang++", "-DN=" + std::to_string(I)});
    std::ofstream(E.Pch) << "header";
    ASSERT_TRUE(prelude::record(E, {}, /*Built=*/true));
    fs::last_write_time(E.Pch, Now - std::chrono::hours(100 - I)); // the first ones oldest
    Entries.push_back(E);
  }
  prelude::Entry Last = prelude::entryFor(dir().string(), {"clang++", "-DLAST"});
  std::ofstream(Last.Pch) << "header";
  ASSERT_TRUE(prelude::record(Last, {}, /*Built=*/true));
  EXPECT_EQ(withExtension(".pch").size(), prelude::DefaultEntries);
  EXPECT_EQ(withExtension(".inputs").size(), prelude::DefaultEntries);
  EXPECT_TRUE(fs::exists(Last.Pch));
  for (unsigned I = 0; I < 5; ++I)
    EXPECT_FALSE(fs::exists(Entries[I].Pch)) << I;
  EXPECT_TRUE(fs::exists(Entries[5].Pch));
}

} // namespace

namespace {

TEST_F(PreludeCacheTest, ANumberSetsHowManyHeadersTheFolderKeeps) {
  setenv("CUTRACE_PARSE_CACHE", "3", 1);
  EXPECT_EQ(prelude::maxEntries(), 3u);
  fs::create_directories(dir());
  for (unsigned I = 0; I < 5; ++I) {
    prelude::Entry E = prelude::entryFor(dir().string(), {"clang++", "-DN=" + std::to_string(I)});
    std::ofstream(E.Pch) << "header";
    ASSERT_TRUE(prelude::record(E, {}, /*Built=*/true));
  }
  EXPECT_EQ(withExtension(".pch").size(), 3u);
  setenv("CUTRACE_PARSE_CACHE", "many", 1);
  EXPECT_EQ(prelude::maxEntries(), prelude::DefaultEntries);
}

} // namespace

namespace {

TEST_F(PreludeCacheTest, LeftoversAndOldFailuresGoWhenAnEntryIsWritten) {
  fs::create_directories(dir());
  auto Now = fs::file_time_type::clock::now();
  auto Make = [&](const std::string &Name, std::chrono::hours Age) {
    fs::path P = dir() / Name;
    std::ofstream(P) << "x";
    fs::last_write_time(P, Now - Age);
    return P;
  };
  fs::path OldTemp = Make("a.pch-123456", std::chrono::hours(2));
  fs::path NewTemp = Make("b.pch-654321", std::chrono::hours(0));
  fs::path OldFailure = Make("c.failed", std::chrono::hours(24 * 31));
  fs::path NewFailure = Make("d.failed", std::chrono::hours(24));
  prelude::Entry E = prelude::entryFor(dir().string(), {"clang++"});
  std::ofstream(E.Pch) << "header";
  ASSERT_TRUE(prelude::record(E, {}, /*Built=*/true));
  EXPECT_FALSE(fs::exists(OldTemp));
  EXPECT_TRUE(fs::exists(NewTemp)); // another run may be writing it
  EXPECT_FALSE(fs::exists(OldFailure));
  EXPECT_TRUE(fs::exists(NewFailure));
}

} // namespace
