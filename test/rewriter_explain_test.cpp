// The rewrite report (docs/explain.md) on the library: stage records (completed, failed with the
// error, skipped with why, not reached after a failure), per-region before/after with +/- counts
// equal to an independent `diff`, a colour-free terminal rendering, escaped HTML, run folders that
// never overwrite.
#include "pipeline/Check.h"
#include "report/ExplainHtml.h"
#include "report/ExplainTerminal.h"
#include "report/RunReport.h"
#include "strip/Strip.h"
#include "traced/TracedRewrite.h"

#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> AllStages = {
    "collect annotations", "parse host pass", "parse device pass", "check rules",
    "plan edits",          "apply edits",     "write map",         "write output"};

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

fs::path freshDir(const std::string &Name) {
  fs::path D =
      fs::temp_directory_path() / ("cutrace_explain_" + Name + "_" + std::to_string(::getpid()));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

/// Lines removed and added as the system's `diff` counts them: the reference, computed outside
/// the code under test.
std::pair<unsigned, unsigned> referenceDiffCounts(const std::string &Old, const std::string &New) {
  fs::path D = freshDir("ref");
  std::ofstream(D / "old", std::ios::binary) << Old;
  std::ofstream(D / "new", std::ios::binary) << New;
  std::string Cmd = "diff " + (D / "old").string() + " " + (D / "new").string();
  FILE *P = popen(Cmd.c_str(), "r");
  unsigned Removed = 0, Added = 0;
  char Line[65536];
  while (P && fgets(Line, sizeof Line, P)) {
    Removed += Line[0] == '<';
    Added += Line[0] == '>';
  }
  if (P)
    pclose(P);
  fs::remove_all(D);
  return {Removed, Added};
}

struct StripRun {
  std::string Stripped;
  std::vector<ChangedRegion> Regions;
};

StripRun stripWithRegions(llvm::StringRef Text) {
  ScanResult Scan = scanAnnotations(Text);
  std::vector<Span> Deletions = planStripDeletions(Text, strippedStatements(Scan));
  return {applyDeletions(Text, Deletions),
          describeChanges(Text, deletionEdits(Deletions), functionRegions(Text, Scan))};
}

std::string terminalText(const RunReport &R, bool Color) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  renderTerminal(R, OS, Color);
  return Out;
}

const char *TwoKernels = "#include <cutrace/trace.h>\n"        // 1
                         "\n"                                  // 2
                         "__global__ void a(int *x) {\n"       // 3
                         "  TRACE_RANGE(\"a\");\n"             // 4
                         "  x[0] = 1;\n"                       // 5
                         "}\n"                                 // 6
                         "\n"                                  // 7
                         "namespace ns {\n"                    // 8
                         "__global__ void b(int *x) {\n"       // 9
                         "  x[0] = 2; TRACE_RECORD(\"b\");\n"  // 10
                         "  if (x) { TRACE_RECORD(\"c\"); }\n" // 11
                         "}\n"                                 // 12
                         "}\n";                                // 13

// ---- stages -----------------------------------------------------------------------------------

TEST(ExplainStages, EachStageKeepsItsStatusDurationAndCounts) {
  RunReport R("k.cu", "traced", AllStages);
  R.start("collect annotations");
  R.complete("collect annotations", {{"TRACE_RANGE", 2}, {"annotations", 2}});
  R.skip("parse device pass", "the host pass saw every annotation");
  R.start("parse host pass");
  R.fail("parse host pass", "could not parse the file", "k.cu:3:1: error: boom\n");
  R.finish();
  const StageRecord *Collect = R.stage("collect annotations");
  EXPECT_EQ(Collect->Status, StageStatus::Completed);
  EXPECT_GE(Collect->Millis, 0.0);
  ASSERT_EQ(Collect->Counts.size(), 2u);
  EXPECT_EQ(Collect->Counts[0].What, "TRACE_RANGE");
  EXPECT_EQ(Collect->Counts[0].Value, 2u);
  EXPECT_EQ(R.stage("parse device pass")->Status, StageStatus::Skipped);
  EXPECT_EQ(R.stage("parse device pass")->Reason, "the host pass saw every annotation");
  EXPECT_EQ(R.stage("parse host pass")->Status, StageStatus::Failed);
  EXPECT_TRUE(R.failed());
}

TEST(ExplainStages, StagesAfterAFailureAreSkippedAsNotReached) {
  RunReport R("k.cu", "strip", AllStages);
  R.complete("collect annotations");
  R.fail("check rules", "1 rule violation(s)", "k.cu:6:25: error: payload has side effects\n");
  R.finish();
  for (const char *Later : {"plan edits", "apply edits", "write output"}) {
    EXPECT_EQ(R.stage(Later)->Status, StageStatus::Skipped) << Later;
    EXPECT_EQ(R.stage(Later)->Reason, "not reached: stage 'check rules' failed") << Later;
  }
  EXPECT_EQ(R.stages().size(), AllStages.size());
  EXPECT_EQ(R.stages().front().Name, "collect annotations"); // listed order, not record order
}

TEST(ExplainStages, AnnotationCountsArePerKind) {
  ScanResult Scan = scanAnnotations(TwoKernels);
  std::vector<Count> C = annotationCounts(Scan);
  auto Value = [&](const std::string &What) {
    for (const Count &X : C)
      if (X.What == What)
        return X.Value;
    return 999u;
  };
  EXPECT_EQ(Value("TRACE_RANGE"), 1u);
  EXPECT_EQ(Value("TRACE_RECORD"), 2u);
  EXPECT_EQ(Value("annotations"), 3u);
  EXPECT_EQ(Value("trace.h includes"), 1u);
  EXPECT_EQ(Value("TRACE_GROUP"), 999u); // kinds that do not occur are left out
}

// ---- regions and counts -----------------------------------------------------------------------

TEST(ExplainRegions, StripRegionsArePerFunctionWithHandCheckedCounts) {
  StripRun Run = stripWithRegions(TwoKernels);
  ASSERT_EQ(Run.Regions.size(), 3u);
  EXPECT_EQ(Run.Regions[0].What, ChangedRegion::FileScope); // the #include line
  EXPECT_EQ(Run.Regions[0].Removed, 1u);
  EXPECT_EQ(Run.Regions[0].Added, 0u);
  EXPECT_EQ(Run.Regions[1].What, ChangedRegion::Function);
  EXPECT_EQ(Run.Regions[1].Name, "a");
  EXPECT_EQ(Run.Regions[1].OldFirstLine, 3u);
  EXPECT_EQ(Run.Regions[1].NewFirstLine, 2u);
  EXPECT_EQ(Run.Regions[1].Removed, 1u); // line 4 goes
  EXPECT_EQ(Run.Regions[1].Added, 0u);
  EXPECT_EQ(Run.Regions[2].Name, "b");   // inside a namespace: the function, not the namespace
  EXPECT_EQ(Run.Regions[2].Removed, 2u); // lines 10 and 11 change in place
  EXPECT_EQ(Run.Regions[2].Added, 2u);
  EXPECT_EQ(Run.Regions[2].Before, "__global__ void b(int *x) {\n  x[0] = 2; TRACE_RECORD(\"b\");\n"
                                   "  if (x) { TRACE_RECORD(\"c\"); }\n}\n");
  EXPECT_EQ(Run.Regions[2].After, "__global__ void b(int *x) {\n  x[0] = 2;\n  if (x) { }\n}\n");
}

TEST(ExplainRegions, RegionLineNumbersAreTheFilesOwn) {
  StripRun Run = stripWithRegions(TwoKernels);
  const ChangedRegion &B = Run.Regions[2];
  for (const DiffLine &D : B.Lines)
    if (D.What == DiffLine::Removed)
      EXPECT_TRUE(D.OldLine == 10 || D.OldLine == 11) << D.OldLine;
    else if (D.What == DiffLine::Added)
      EXPECT_TRUE(D.NewLine == 8 || D.NewLine == 9) << D.NewLine;
}

TEST(ExplainRegions, CountsEqualTheReferenceDiffOnEveryStripCorpusFile) {
  unsigned Checked = 0;
  for (const auto &E : fs::directory_iterator(fs::path(CUTRACE_TEST_INPUTS) / "strip")) {
    std::string Name = E.path().filename().string();
    if (E.path().extension() != ".cu" || Name.find(".plain.") != std::string::npos)
      continue;
    std::string Text = readFile(E.path());
    if (!scanAnnotations(Text).Problems.empty())
      continue;
    StripRun Run = stripWithRegions(Text);
    unsigned Added = 0, Removed = 0;
    for (const ChangedRegion &R : Run.Regions) {
      Added += R.Added;
      Removed += R.Removed;
      EXPECT_GT(R.Added + R.Removed, 0u) << Name << ": " << R.Name;
    }
    auto [RefRemoved, RefAdded] = referenceDiffCounts(Text, Run.Stripped);
    EXPECT_EQ(Removed, RefRemoved) << Name;
    EXPECT_EQ(Added, RefAdded) << Name;
    ++Checked;
  }
  EXPECT_GT(Checked, 10u);
}

TEST(ExplainRegions, TracedKernelsAndLaunchSitesMatchTheReferenceDiff) {
  fs::path Input = fs::path(CUTRACE_TEST_INPUTS) / "traced" / "two_kernels.cu";
  std::string Text = readFile(Input);
  ScanResult Scan = scanAnnotations(Text);
  std::vector<ParseOutcome> Passes = {
      parseSource(Input.string(), compat::ParseOptions(), compat::CudaPass::Host)};
  ASSERT_TRUE(Passes[0].Ran) << Passes[0].FailureReason;
  SourceModel Model = mergeModels(Passes);
  TracedOptions Options;
  Options.SourceName = "two_kernels.cu";
  Options.MapInclude = "two_kernels.trace_map.h";
  TracedPlan Plan = planTraced(Text, Scan, Model, Options);
  llvm::Expected<std::string> After = applyEdits(Text, Plan.Edits);
  ASSERT_TRUE(static_cast<bool>(After));
  std::vector<ChangedRegion> Regions =
      describeChanges(Text, Plan.Edits, tracedRegions(Text, Plan, Model));
  std::vector<std::string> Kernels, Launches;
  unsigned Added = 0, Removed = 0;
  for (const ChangedRegion &R : Regions) {
    if (R.What == ChangedRegion::Kernel)
      Kernels.push_back(R.Name);
    if (R.What == ChangedRegion::LaunchSite)
      Launches.push_back(R.Name);
    Added += R.Added;
    Removed += R.Removed;
  }
  EXPECT_EQ(Kernels, (std::vector<std::string>{"scale", "shift"})); // not `untouched`
  EXPECT_EQ(Launches.size(), 2u);
  auto [RefRemoved, RefAdded] = referenceDiffCounts(Text, *After);
  EXPECT_EQ(Removed, RefRemoved);
  EXPECT_EQ(Added, RefAdded);
  for (const ChangedRegion &R : Regions)
    if (R.What == ChangedRegion::Kernel) {
      EXPECT_NE(R.Before.find("__global__ void " + R.Name), std::string::npos) << R.Before;
      EXPECT_NE(R.After.find("cutrace::Slots* __cutrace_slots"), std::string::npos) << R.After;
    }
}

// ---- rendering --------------------------------------------------------------------------------

RunReport sampleReport(const std::string &Code) {
  RunReport R("a<b>&c.cu", "strip", AllStages);
  R.start("collect annotations");
  R.complete("collect annotations", {{"annotations", 1}});
  R.skip("parse host pass", "strip is lexical");
  R.skip("parse device pass", "strip is lexical");
  R.complete("check rules");
  R.complete("plan edits");
  R.complete("apply edits");
  ScanResult Scan = scanAnnotations(Code);
  std::vector<Span> Deletions = planStripDeletions(Code, strippedStatements(Scan));
  R.setChanges(describeChanges(Code, deletionEdits(Deletions), functionRegions(Code, Scan)));
  R.fail("write output", "cannot write 'x'", "x: error: <denied> & gone\n");
  R.finish();
  return R;
}

const char *Hostile = "template <typename T> __global__ void k(T *p) {\n"
                      "  TRACE_RECORD(\"</script><b>\");\n"
                      "  if (p && 1 < 2) p[0] = T(); // </script> & <tag>\n"
                      "}\n";

TEST(ExplainTerminal, ShowsOneStatusLinePerStageThenUnifiedDiffs) {
  std::string Text = terminalText(sampleReport(Hostile), /*Color=*/false);
  EXPECT_NE(Text.find("completed collect annotations"), std::string::npos) << Text;
  EXPECT_NE(Text.find("skipped   parse device pass"), std::string::npos) << Text;
  EXPECT_NE(Text.find("strip is lexical"), std::string::npos) << Text;
  EXPECT_NE(Text.find("failed    write output"), std::string::npos) << Text;
  EXPECT_NE(Text.find("x: error: <denied> & gone"), std::string::npos) << Text;
  EXPECT_NE(Text.find("function k  +0 -1"), std::string::npos) << Text;
  EXPECT_NE(Text.find("@@ -1,4 +1,3 @@"), std::string::npos) << Text;
  EXPECT_NE(Text.find("\n-  TRACE_RECORD(\"</script><b>\");\n"), std::string::npos) << Text;
}

TEST(ExplainTerminal, NoEscapeCodesWithoutColour) {
  std::string Text = terminalText(sampleReport(Hostile), /*Color=*/false);
  EXPECT_EQ(Text.find('\033'), std::string::npos);
  std::string Coloured = terminalText(sampleReport(Hostile), /*Color=*/true);
  EXPECT_NE(Coloured.find("\033[31m-"), std::string::npos); // the switch does switch
}

TEST(ExplainTerminal, ColourOnlyOnATerminalAndNeverWithNoColor) {
  std::string Sink;
  llvm::raw_string_ostream NotATty(Sink);
  EXPECT_FALSE(terminalWantsColor(NotATty));
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(terminalWantsColor(llvm::errs()));
  ::unsetenv("NO_COLOR");
}

TEST(ExplainHtml, CodeNamesAndDiagnosticsAreEscaped) {
  std::string Html = renderHtml(sampleReport(Hostile));
  EXPECT_EQ(Html.find("</script><b>"), std::string::npos);
  EXPECT_EQ(Html.find("<denied>"), std::string::npos);
  EXPECT_EQ(Html.find("a<b>&c.cu"), std::string::npos);
  EXPECT_NE(Html.find("a&lt;b&gt;&amp;c.cu"), std::string::npos);
  EXPECT_NE(Html.find("&lt;/script&gt;&lt;b&gt;"), std::string::npos);
  EXPECT_NE(Html.find("1 &lt; 2"), std::string::npos);
  EXPECT_NE(Html.find("&lt;denied&gt; &amp; gone"), std::string::npos);
  // Exactly one script element: the page's own.
  size_t First = Html.find("<script>");
  EXPECT_NE(First, std::string::npos);
  EXPECT_EQ(Html.find("<script>", First + 1), std::string::npos);
  EXPECT_EQ(Html.find("</script>"), Html.rfind("</script>"));
}

TEST(ExplainHtml, SelfContainedWithSidebarEntriesPerStageAndRegion) {
  RunReport R = sampleReport(TwoKernels);
  std::string Html = renderHtml(R);
  for (const char *Remote : {"http://", "https://", "src=\"", "<link"})
    EXPECT_EQ(Html.find(Remote), std::string::npos) << Remote;
  size_t Stages = 0, Links = 0;
  for (size_t P = Html.find("<li class=\"stage "); P != std::string::npos;
       P = Html.find("<li class=\"stage ", P + 1))
    ++Stages;
  for (size_t P = Html.find("data-region=\""); P != std::string::npos;
       P = Html.find("data-region=\"", P + 1))
    ++Links;
  EXPECT_EQ(Stages, AllStages.size());
  EXPECT_EQ(Links, R.changes().size());
  EXPECT_NE(Html.find("<li class=\"stage failed\">"), std::string::npos);
  EXPECT_NE(Html.find("<li class=\"stage skipped\">"), std::string::npos);
}

TEST(ExplainHtml, IntraLineChangesAreHighlighted) {
  RunReport R = sampleReport(TwoKernels);
  std::string Html = renderHtml(R);
  // `  x[0] = 2; TRACE_RECORD("b");` -> `  x[0] = 2;`: the common prefix stays plain.
  EXPECT_NE(Html.find("  x[0] = 2;<span class=\"dx\"> TRACE_RECORD(&quot;b&quot;);</span>"),
            std::string::npos)
      << Html;
}

TEST(ExplainHtml, LongUnchangedContextIsFolded) {
  std::string Code = "__global__ void k() {\n  TRACE_RECORD(\"a\");\n";
  for (int I = 0; I < 20; ++I)
    Code += "  int v" + std::to_string(I) + " = 0;\n";
  Code += "  TRACE_RECORD(\"b\");\n}\n";
  std::string Html = renderHtml(sampleReport(Code));
  EXPECT_NE(Html.find("14 unchanged lines"), std::string::npos); // 20 - 3 - 3
  EXPECT_NE(Html.find("<tr class=\"folded\""), std::string::npos);
}

// ---- where reports go -------------------------------------------------------------------------

TEST(ExplainRunFolder, RunsNeverOverwriteAndLatestPointsAtTheNewest) {
  fs::path Dir = freshDir("runs");
  llvm::Expected<std::string> First = createRunFolder(Dir.string());
  ASSERT_TRUE(static_cast<bool>(First));
  std::ofstream(fs::path(*First) / "k.cu.html") << "first";
  ASSERT_FALSE(static_cast<bool>(pointLatest(Dir.string(), *First)));
  llvm::Expected<std::string> Second = createRunFolder(Dir.string()); // same second, likely
  ASSERT_TRUE(static_cast<bool>(Second));
  EXPECT_NE(*First, *Second);
  std::ofstream(fs::path(*Second) / "k.cu.html") << "second";
  ASSERT_FALSE(static_cast<bool>(pointLatest(Dir.string(), *Second)));
  EXPECT_EQ(readFile(fs::path(*First) / "k.cu.html"), "first");
  EXPECT_EQ(readFile(Dir / "latest" / "k.cu.html"), "second");
  fs::remove_all(Dir);
}

} // namespace
