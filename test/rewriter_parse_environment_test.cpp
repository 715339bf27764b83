// The traced pipeline parses what nvcc compiles (docs/design.md, "The parse environment"): one
// device pass per arch of the build, Clang-only errors never block, CUTRACE_TRACED in the
// traced parse only.
#include "pipeline/Rewrite.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

SourceFile input(const char *Name) {
  llvm::Expected<SourceFile> F =
      readSource((fs::path(CUTRACE_TEST_INPUTS) / "parse" / Name).string());
  EXPECT_TRUE(static_cast<bool>(F));
  return std::move(*F);
}

/// A traced run planned (nothing written) with the compile command given after `--`.
RewriteResult planTraced(const SourceFile &F, std::vector<std::string> Command,
                         std::string &Shown, bool Verbose = false) {
  RewriteRequest Request;
  Request.Mode = RewriteMode::Traced;
  Request.Verbose = Verbose;
  Request.Output = (fs::temp_directory_path() / "cutrace_parse_env" / "out.traced.cu").string();
  Request.Compile.FindDatabase = false;
  Request.Compile.CommandTail = std::move(Command);
  llvm::raw_string_ostream Out(Shown);
  return planRewrite(F, Request, Out);
}

std::set<unsigned> seenOffsets(const SourceModel &Model) {
  std::set<unsigned> Seen;
  for (const AnnotationUse &U : Model.Uses)
    Seen.insert(U.MacroOffset);
  return Seen;
}

unsigned offsetOf(const SourceFile &F, llvm::StringRef Text) {
  size_t At = F.text().find(Text);
  EXPECT_NE(At, llvm::StringRef::npos) << Text.str();
  return static_cast<unsigned>(At);
}

const Count *countNamed(const RewriteResult &R, llvm::StringRef Stage, llvm::StringRef What) {
  for (const Count &C : R.Log.stage(Stage)->Counts)
    if (C.What == What)
      return &C;
  return nullptr;
}

TEST(Arches, EveryGencodeArchGetsItsOwnDevicePass) {
  SourceFile F = input("arch_list.cu");
  std::string Shown;
  RewriteResult R = planTraced(F,
                               {"-gencode", "arch=compute_80,code=sm_80",
                                "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]"},
                               Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  const Count *Arches = countNamed(R, stage::ParseDevice, "arches");
  ASSERT_NE(Arches, nullptr);
  EXPECT_EQ(Arches->Value, 2u);
  EXPECT_NE(countNamed(R, stage::ParseDevice, "annotations seen (sm_90a)"), nullptr);
  EXPECT_TRUE(R.UnseenAnnotations.empty());
  std::set<unsigned> Seen = seenOffsets(R.Model);
  for (llvm::StringRef Site :
       {"TRACE_RECORD(\"hopper\")", "TRACE_RECORD(\"ampere\")", "TRACE_RECORD(\"sm90a_features\")"})
    EXPECT_TRUE(Seen.count(offsetOf(F, Site))) << Site.str() << " seen by no pass";
}

TEST(Arches, AnnotationsNoArchCompilesAreReportedByOffset) {
  SourceFile F = input("arch_list.cu");
  std::string Shown;
  RewriteResult R = planTraced(F, {"-arch=sm_80"}, Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  EXPECT_EQ(R.UnseenAnnotations,
            std::vector<unsigned>({offsetOf(F, "TRACE_RECORD(\"hopper\")"),
                                   offsetOf(F, "TRACE_RECORD(\"sm90a_features\")")}));
}

TEST(Arches, ArchClangCannotTargetFallsBackWithANote) {
  SourceFile F = input("arch_list.cu");
  std::string Shown;
  RewriteResult R = planTraced(F, {"-gencode", "arch=compute_100a,code=sm_100a"}, Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  EXPECT_NE(Shown.find("note: Clang 19 cannot target sm_100a; its device pass parses as sm_90 "
                       "with __CUDA_ARCH__=1000"),
            std::string::npos)
      << Shown;
  // __CUDA_ARCH__ is 1000, and sm_100a's features are not sm_90a's.
  std::set<unsigned> Seen = seenOffsets(R.Model);
  EXPECT_TRUE(Seen.count(offsetOf(F, "TRACE_RECORD(\"hopper\")")));
  EXPECT_FALSE(Seen.count(offsetOf(F, "TRACE_RECORD(\"sm90a_features\")")));
}

TEST(Arches, ArchNvccCannotCompileIsLeftOutWithANote) {
  SourceFile F = input("arch_list.cu");
  std::string Shown;
  RewriteResult R = planTraced(
      F, {"-gencode", "arch=compute_70,code=sm_70", "-gencode", "arch=compute_80,code=sm_80"},
      Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  EXPECT_NE(Shown.find("note: the compile command names GPU architecture 'sm_70', which nvcc 13 "
                       "does not compile for"),
            std::string::npos)
      << Shown;
}

TEST(ClangOnlyErrors, AlignasAfterSharedDoesNotBlockTheTracedRewrite) {
  SourceFile F = input("alignas_shared.cu");
  std::string Shown;
  // -v: the note on code Clang 19 rejects and nvcc accepts is shown only when asked for.
  RewriteResult R = planTraced(F, {}, Shown, /*Verbose=*/true);
  EXPECT_EQ(R.Status, Ok) << Shown;
  EXPECT_NE(Shown.find("alignas_shared.cu:7:14: note: Clang 19 rejects this and nvcc accepts it "
                       "(nvcc accepts alignas after a CUDA memory space (__shared__ "
                       "alignas(...))"),
            std::string::npos)
      << Shown;
  EXPECT_EQ(Shown.find("error"), std::string::npos) << Shown;
  EXPECT_FALSE(R.Pending.empty());
}

TEST(ClangOnlyErrors, DeviceSideLaunchDoesNotBlockAndStaysAsWritten) {
  SourceFile F = input("device_launch.cu");
  std::string Shown;
  RewriteResult R = planTraced(F, {"nvcc", "-rdc=true", "-arch=sm_90", "-c", F.Path}, Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  EXPECT_EQ(Shown.find("error"), std::string::npos) << Shown;
  std::string Traced;
  for (const PendingOutput &P : R.Pending)
    if (llvm::StringRef(P.Path).ends_with(".traced.cu"))
      Traced = P.Text;
  EXPECT_NE(Traced.find("    child<<<1, 32>>>(x);"), std::string::npos) << Traced;
  EXPECT_NE(Traced.find("cutrace::launchPair(cutrace_map::parent, parent"), std::string::npos);
}

TEST(ClangOnlyErrors, ARealErrorInAnAnnotatedKernelStillBlocks) {
  fs::path File = fs::temp_directory_path() / "cutrace_real_error.cu";
  std::ofstream(File) << "#include <cutrace/trace.h>\n__global__ void k(float *x) {\n"
                         "  TRACE_GROUP(\"g\", 0);\n  x[0] = undeclared_name;\n}\n";
  llvm::Expected<SourceFile> F = readSource(File.string());
  ASSERT_TRUE(static_cast<bool>(F));
  std::string Shown;
  RewriteResult R = planTraced(*F, {}, Shown);
  EXPECT_EQ(R.Status, AnnotationErrors) << Shown;
  EXPECT_NE(Shown.find("use of undeclared identifier 'undeclared_name'"), std::string::npos);
  fs::remove(File);
}

TEST(CutraceTraced, DefinedInTheTracedParseOnly) {
  SourceFile F = input("cutrace_traced.cu");
  std::string Shown;
  RewriteResult R = planTraced(F, {}, Shown);
  ASSERT_EQ(R.Status, Ok) << Shown;
  EXPECT_EQ(R.Model.Launches.size(), 2u)
      << "the traced parse sees the #ifdef CUTRACE_TRACED launches";

  RewriteRequest Verify;
  Verify.Mode = RewriteMode::VerifyStrip;
  Verify.Compile.FindDatabase = false;
  std::string VerifyShown;
  llvm::raw_string_ostream Out(VerifyShown);
  RewriteResult V = planRewrite(F, Verify, Out);
  EXPECT_EQ(V.Status, Ok) << VerifyShown;
  const Count *Launches = countNamed(V, stage::ParseHost, "launch sites");
  ASSERT_NE(Launches, nullptr);
  EXPECT_EQ(Launches->Value, 1u) << "strip and verify parse the #else branch";
}

} // namespace
