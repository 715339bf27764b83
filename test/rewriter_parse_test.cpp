// Compat: realistic CUDA 13 code parses with Clang 19 in both passes with zero errors
// (rewriter/compat, docs/design.md).
#include "model/SourceModel.h"
#include "strip/Verify.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> realisticCorpus() {
  std::vector<std::string> Files;
  for (const auto &E : fs::directory_iterator(fs::path(CUTRACE_TEST_INPUTS) / "strip")) {
    std::string Name = E.path().filename().string();
    if (Name.rfind("real_", 0) == 0 && Name.find(".plain.") == std::string::npos)
      Files.push_back(E.path().string());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

class Compat : public ::testing::TestWithParam<std::string> {};

TEST_P(Compat, ParsesWithoutErrorsInHostAndDevicePass) {
  for (compat::CudaPass Pass : {compat::CudaPass::Host, compat::CudaPass::Device}) {
    ParseOutcome Outcome = parseSource(GetParam(), compat::ParseOptions(), Pass);
    EXPECT_TRUE(Outcome.Ran) << compat::passName(Pass).str() << ": " << Outcome.FailureReason;
    // The one error Clang 19 reports on code nvcc accepts (a libcu++ barrier in __shared__
    // memory, host pass) is listed in compat and ignored by every check; nothing else may fail.
    std::string Errors;
    for (const ClangDiagnostic &D : Outcome.Diagnostics)
      if (D.Level == Severity::Error && !compat::isClangOnlyError(D.Message))
        Errors += D.Location + ": " + D.Message + "\n";
    EXPECT_EQ(Errors, "") << compat::passName(Pass).str() << " pass";
    EXPECT_FALSE(Outcome.Model.Uses.empty()) << "annotations must be visible in the AST";
  }
}

INSTANTIATE_TEST_SUITE_P(, Compat, ::testing::ValuesIn(realisticCorpus()),
                         [](const auto &Info) { return fs::path(Info.param).stem().string(); });

std::string parseInput(const char *Name) {
  return (fs::path(CUTRACE_TEST_INPUTS) / "parse" / Name).string();
}

bool contains(const std::vector<std::string> &Args, const std::string &Arg) {
  return std::find(Args.begin(), Args.end(), Arg) != Args.end();
}

// nvcc 13.0 --dryrun predefines __CUDACC_VER_MAJOR__=13 in every pass; CUTLASS and libcu++ test it.
TEST(CompatNvccMacros, VersionBranchNvccCompilesIsTheOneParsed) {
  for (compat::CudaPass Pass : {compat::CudaPass::Host, compat::CudaPass::Device}) {
    ParseOutcome P = parseSource(parseInput("nvcc_version.cu"), compat::ParseOptions(), Pass);
    ASSERT_TRUE(P.Ran) << P.FailureReason;
    std::ifstream In(parseInput("nvcc_version.cu"));
    std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
    ScanResult Scan = scanAnnotations(Text);
    Verdict V = verifyAnnotations(Scan, {P});
    bool SideEffect = false;
    for (const Problem &Pr : V.Problems)
      SideEffect |= Pr.Message.find("has side effects") != std::string::npos;
    EXPECT_TRUE(SideEffect) << compat::passName(Pass).str()
                            << ": the #if __CUDACC_VER_MAJOR__ >= 12 branch was not parsed";
  }
}

TEST(CompatNvccMacros, VersionComesFromTheToolkit) {
  std::optional<compat::CudaVersion> V = compat::cudaVersion("/usr/local/cuda");
  ASSERT_TRUE(V.has_value());
  EXPECT_GE(V->Major, 12u);
  fs::path Dir = fs::temp_directory_path() / "cutrace_cuda_version_test";
  fs::remove_all(Dir);
  fs::create_directories(Dir / "include");
  std::ofstream(Dir / "include" / "cuda.h") << "#define CUDA_VERSION 12040\n";
  V = compat::cudaVersion(Dir.string());
  ASSERT_TRUE(V.has_value());
  EXPECT_EQ(V->Major, 12u);
  EXPECT_EQ(V->Minor, 4u);
  EXPECT_EQ(V->Build, 0u);
  fs::path Json = Dir.string() + "-json";
  fs::create_directories(Json);
  std::ofstream(Json / "version.json")
      << R"({"cuda": {"version": "12.8.1"}, "cuda_nvcc": {"version": "12.8.93"}})";
  V = compat::cudaVersion(Json.string());
  ASSERT_TRUE(V.has_value());
  EXPECT_EQ(V->Minor, 8u);
  EXPECT_EQ(V->Build, 93u);
  fs::remove_all(Dir);
  fs::remove_all(Json);
}

TEST(CompatNvccMacros, PredefinedInEveryPassLikeNvcc) {
  compat::ParseOptions O;
  O.GpuArchs = {"sm_90a", "sm_80"};
  O.GpuArch = "sm_90a";
  for (compat::CudaPass Pass : {compat::CudaPass::Host, compat::CudaPass::Device}) {
    std::vector<std::string> D = compat::nvccPredefines(O, Pass);
    EXPECT_TRUE(contains(D, "-D__NVCC__"));
    EXPECT_TRUE(contains(D, "-D__CUDA_ARCH_LIST__=800,900"));
    EXPECT_FALSE(contains(D, "-D__CUDACC_RDC__")) << "only with -rdc=true";
    EXPECT_FALSE(contains(D, "-DCUTRACE_TRACED")) << "only in a traced run's parse";
    EXPECT_EQ(contains(D, "-D__CUDA_ARCH_SPECIFIC__=900"), Pass == compat::CudaPass::Device);
  }
  O.Traced = true;
  EXPECT_TRUE(contains(compat::nvccPredefines(O, compat::CudaPass::Host), "-DCUTRACE_TRACED"));
}

TEST(CompatNvccMacros, DialectFlagsDefineTheirMacrosOnlyWhenGiven) {
  std::vector<std::string> Plain = compat::translateCompileCommand({"nvcc", "-O2", "-c", "k.cu"});
  EXPECT_FALSE(contains(Plain, "-D__CUDACC_RDC__"));
  std::vector<std::string> Args = compat::translateCompileCommand(
      {"nvcc", "-rdc=true", "--extended-lambda", "--expt-relaxed-constexpr", "-G", "-c", "k.cu"});
  for (const char *M : {"-D__CUDACC_RDC__", "-D__CUDACC_EXTENDED_LAMBDA__",
                        "-D__CUDACC_RELAXED_CONSTEXPR__", "-D__CUDACC_DEBUG__"})
    EXPECT_TRUE(contains(Args, M)) << M;
}

TEST(CompatArchs, EveryArchFlagOfAnNvccCommandLine) {
  auto Archs = [](std::vector<std::string> Command) {
    Command.insert(Command.begin(), "nvcc");
    return compat::buildArchsOf(Command).Archs;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(Archs({"-arch=sm_80"}), V({"sm_80"}));
  EXPECT_EQ(Archs({"-arch", "sm_86"}), V({"sm_86"}));
  EXPECT_EQ(Archs({"--gpu-architecture=sm_89"}), V({"sm_89"}));
  EXPECT_EQ(Archs({"-arch=sm_80", "-arch=sm_90"}), V({"sm_90"})) << "nvcc keeps the last -arch";
  // -arch=sm_90a compiles compute_90 and compute_90a (nvcc 13 --dryrun).
  EXPECT_EQ(Archs({"-arch=sm_90a"}), V({"sm_90", "sm_90a"}));
  EXPECT_EQ(
      Archs({"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=sm_90a"}),
      V({"sm_80", "sm_90a"}));
  EXPECT_EQ(Archs({"-gencode=arch=compute_80,code=[sm_80,compute_80]"}), V({"sm_80"}));
  EXPECT_EQ(Archs({"--generate-code", "arch=compute_100a,code=sm_100a"}), V({"sm_100a"}));
  EXPECT_EQ(Archs({"--cuda-gpu-arch=sm_80", "--cuda-gpu-arch=sm_90"}), V({"sm_80", "sm_90"}));
  EXPECT_EQ(Archs({"-O2", "-c", "k.cu"}), V());
  EXPECT_EQ(Archs({"-arch=all-major"}),
            V({"sm_75", "sm_80", "sm_90", "sm_100", "sm_110", "sm_120"}));
  compat::BuildArchs Old = compat::buildArchsOf(
      {"nvcc", "-gencode", "arch=compute_70,code=sm_70", "-gencode", "arch=compute_80,code=sm_80"});
  EXPECT_EQ(Old.Archs, V({"sm_80"})) << "nvcc 13 compiles sm_75 and up";
  EXPECT_EQ(Old.Dropped, V({"sm_70"}));
}

TEST(CompatArchs, ArchesClangCannotTargetParseAsTheNearestWithTheirOwnArchValue) {
  compat::ArchParse Hopper = compat::archParse("sm_90a");
  EXPECT_EQ(Hopper.ClangArch, "sm_90a");
  EXPECT_FALSE(Hopper.Fallback);
  compat::ArchParse Blackwell = compat::archParse("sm_100a");
  EXPECT_EQ(Blackwell.ClangArch, "sm_90");
  EXPECT_TRUE(Blackwell.Fallback);
  EXPECT_EQ(Blackwell.ArchValue, 1000u);
  EXPECT_TRUE(contains(Blackwell.Defines, "-U__CUDA_ARCH__"));
  EXPECT_TRUE(contains(Blackwell.Defines, "-D__CUDA_ARCH__=1000"));
  EXPECT_TRUE(contains(Blackwell.Defines, "-D__CUDA_ARCH_FEAT_SM100_ALL"));
  EXPECT_TRUE(contains(Blackwell.Defines, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=1000"));
  compat::ArchParse Family = compat::archParse("sm_120f");
  EXPECT_FALSE(contains(Family.Defines, "-D__CUDA_ARCH_FEAT_SM120_ALL")) << "f is not a";
  EXPECT_TRUE(contains(Family.Defines, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=1200"));
  EXPECT_EQ(compat::archParse("sm_88").ClangArch, "sm_87");
  EXPECT_EQ(compat::archParse("sm_121").ClangArch, "sm_90");
  // The same parse is made once.
  EXPECT_EQ(compat::distinctParses({"sm_90", "compute_90", "sm_90a", "sm_80"}),
            std::vector<std::string>({"sm_90", "sm_90a", "sm_80"}));

  // A real device parse for sm_120: Clang 19 runs as sm_90 and the sm_120 branch is the one seen.
  fs::path File = fs::temp_directory_path() / "cutrace_arch_fallback.cu";
  std::ofstream(File) << "#include <cutrace/trace.h>\n__global__ void k(int *x) {\n"
                         "#if __CUDA_ARCH__ == 1200\n  TRACE_RECORD(\"blackwell\");\n#endif\n}\n";
  compat::ParseOptions O;
  O.GpuArch = "sm_120";
  ParseOutcome P = parseSource(File.string(), O, compat::CudaPass::Device);
  EXPECT_TRUE(P.Ran) << P.FailureReason;
  EXPECT_EQ(P.Model.Uses.size(), 1u);
  fs::remove(File);
}

TEST(CompatResourceDir, FoundWithoutUserHelp) {
  EXPECT_TRUE(fs::is_directory(fs::path(compat::clangResourceDir()) / "include"))
      << compat::clangResourceDir();
}

} // namespace
