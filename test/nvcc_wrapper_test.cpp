// cutrace-nvcc's reading of nvcc command lines, its dependency-file repair and its reading of
// ptxas's notes (docs/cli.md, "cutrace-nvcc"). The wrapper end to end, with nvcc and make, is
// test/wrapper/check_make.sh.
#include "CompilerMessages.h"
#include "DependencyFile.h"
#include "LoopCost.h"
#include "NvccCommand.h"
#include "PtxasNotes.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>

using namespace cutrace;

namespace {

NvccCommand read(std::vector<std::string> Args) { return readNvccCommand(Args); }

std::vector<std::string> cudaInputs(const NvccCommand &C) {
  std::vector<std::string> Paths;
  for (const NvccInput &I : C.Inputs)
    if (I.IsCuda)
      Paths.push_back(I.Path + "@" + std::to_string(I.ArgIndex));
  return Paths;
}

} // namespace

TEST(NvccCommand, OptionValuesAreNeverInputs) {
  NvccCommand C =
      read({"-o", "out.cu.o", "-I", "inc.cu", "-MF", "x.cu", "-MT", "t.cu", "-x", "cu", "-c",
            "main.cu", "--output-directory", "d.cu", "-Xcompiler", "-O2", "-ccbin", "g++"});
  EXPECT_EQ(cudaInputs(C), std::vector<std::string>{"main.cu@11"});
  EXPECT_EQ(C.Output, "out.cu.o");
  EXPECT_EQ(C.DependencyFile, "x.cu");
  EXPECT_FALSE(C.Links);
}

TEST(NvccCommand, EqualsAndLongSpellingsAreRead) {
  NvccCommand C = read({"--output-file=a.o", "--compile", "k.cu", "--dependency-output=k.d",
                        "--generate-dependencies-with-compile"});
  EXPECT_EQ(C.Output, "a.o");
  EXPECT_EQ(C.DependencyFile, "k.d");
  EXPECT_TRUE(C.DependenciesWithCompile);
  EXPECT_FALSE(C.Links);
  EXPECT_EQ(cudaInputs(C), std::vector<std::string>{"k.cu@2"});
}

TEST(NvccCommand, LanguageOptionMakesAnyFileCuda) {
  NvccCommand C = read({"-x", "cu", "-c", "kernel.cpp", "-x", "none", "host.cpp"});
  EXPECT_EQ(cudaInputs(C), std::vector<std::string>{"kernel.cpp@3"});
  ASSERT_EQ(C.Inputs.size(), 2u);
  EXPECT_FALSE(C.Inputs[1].IsCuda);
}

TEST(NvccCommand, OnlyCommandsWithoutAPhaseFlagLink) {
  EXPECT_TRUE(read({"a.o", "b.o", "-o", "app"}).Links);
  EXPECT_TRUE(read({"a.cu", "-o", "app", "-MD"}).Links);
  for (const char *Phase : {"-c", "-dc", "-lib", "-E", "-M", "-MM", "-cubin", "-ptx", "-dlink",
                            "--preprocess", "--lib"})
    EXPECT_FALSE(read({Phase, "a.cu"}).Links) << Phase;
  EXPECT_TRUE(read({"-lineinfo", "a.cu"}).Links) << "-lineinfo is not -l ineinfo";
  EXPECT_TRUE(read({"--version"}).Informational);
}

TEST(NvccCommand, ParseFlagsAreTranslatedForClang) {
  NvccCommand C = read({"-Iinc", "-I", "a,b", "--include-path=c", "-DX=1", "-D", "Y,Z", "-isystem",
                        "sys", "-std=c++17", "-UW", "-O3", "-Xcompiler", "-Wall", "-c", "k.cu"});
  std::vector<std::string> Expected = {"-I",       "inc", "-I",         "a",  "-I", "b",  "-I",
                                       "c",        "-D",  "X=1",        "-D", "Y",  "-D", "Z",
                                       "-isystem", "sys", "-std=c++17", "-U", "W"};
  EXPECT_EQ(C.ClangArgs, Expected);
}

TEST(NvccCommand, FirstNamedArchitectureIsTheParseArchitecture) {
  EXPECT_EQ(read({"-arch=sm_80", "-c", "k.cu"}).GpuArch, "sm_80");
  EXPECT_EQ(read({"-gencode", "arch=compute_90a,code=sm_90a", "-c", "k.cu"}).GpuArch, "sm_90a");
  EXPECT_EQ(read({"--generate-code=arch=compute_86,code=[compute_86,sm_86]", "k.cu"}).GpuArch,
            "sm_86");
  EXPECT_EQ(read({"-arch=native", "k.cu"}).GpuArch, "");
}

TEST(NvccCommand, OptionsFilesGiveParseFlagsButNotCudaInputs) {
  std::string File = testing::TempDir() + "/cutrace-nvcc-options.rsp";
  std::ofstream(File) << "-I\"dir with space\" -DFROM_FILE\n";
  NvccCommand C = read({"--options-file", File, "-c", "k.cu"});
  EXPECT_FALSE(C.Problem);
  EXPECT_EQ(C.ClangArgs, (std::vector<std::string>{"-I", "dir with space", "-D", "FROM_FILE"}));
  std::ofstream(File) << "k2.cu\n";
  NvccCommand Bad = read({"-optf", File, "-c"});
  ASSERT_TRUE(Bad.Problem);
  EXPECT_NE(Bad.Problem->find("'k2.cu' is listed in the options file"), std::string::npos);
  std::remove(File.c_str());
}

TEST(NvccCommand, DependencyFileDefaultsFollowNvcc) {
  NvccCommand C = read({"-MD", "-c", "src/main.cu", "-o", "out/x.cu.o"});
  EXPECT_EQ(defaultDependencyFile(C, C.Inputs[0]), "out/x.cu.d");
  NvccCommand NoOutput = read({"-MD", "-c", "src/main.cu"});
  EXPECT_EQ(defaultDependencyFile(NoOutput, NoOutput.Inputs[0]), "main.d");
}

TEST(DependencyFile, GeneratedSourceBecomesTheOriginalAndHelpersAreDropped) {
  std::vector<GeneratedSource> Sources = {
      {"o/main.o.cutrace/main.cu", "src/main.cu", "o/main.o.cutrace"}};
  std::string In = "o/main.o : o/main.o.cutrace/main.cu \\\n"
                   "    /usr/include/stdio.h \\\n"
                   "    o/main.o.cutrace/main.trace_map.h \\\n"
                   "    src/k.h\n";
  std::string Out = "o/main.o : src/main.cu \\\n"
                    "    /usr/include/stdio.h \\\n"
                    "     \\\n"
                    "    src/k.h\n";
  EXPECT_EQ(restoreOriginals(In, Sources), Out);
}

TEST(DependencyFile, EscapedSpacesStayEscaped) {
  std::vector<GeneratedSource> Sources = {{"g/a b.cu", "my dir/a b.cu", "g"}};
  EXPECT_EQ(restoreOriginals("x.o: g/a\\ b.cu my\\ inc/h.h\n", Sources),
            "x.o: my\\ dir/a\\ b.cu my\\ inc/h.h\n");
}

TEST(DependencyFile, TracedHeaderCopyBecomesTheHeaderItStandsFor) {
  std::vector<GeneratedSource> Sources = {
      {"o/main.o.cutrace/main.cu", "main.cu", "o/main.o.cutrace"},
      {"o/main.o.cutrace/main.traced.headers/tiles.cuh", "/src/tiles.cuh", ""}};
  std::string In = "o/main.o : o/main.o.cutrace/main.cu \\\n"
                   "    o/main.o.cutrace/./main.traced.headers/tiles.cuh \\\n"
                   "    o/main.o.cutrace/main.traced.headers/tiles.trace_map.h\n";
  std::string Out = "o/main.o : main.cu \\\n"
                    "    /src/tiles.cuh \\\n"
                    "    \n";
  EXPECT_EQ(restoreOriginals(In, Sources), Out);
}

TEST(DependencyFile, AFileIsNamedOncePerRule) {
  // nvcc also names the files of a copy's #line directives: the original comes twice.
  std::vector<GeneratedSource> Sources = {{"g/main.cu", "main.cu", "g"},
                                          {"g/main.traced.headers/k.h", "k.h", ""}};
  EXPECT_EQ(restoreOriginals("a.o: g/main.cu main.cu g/main.traced.headers/k.h k.h\n"
                             "b.o: k.h\n",
                             Sources),
            "a.o: main.cu  k.h \nb.o: k.h\n");
}

// ptxas's C7515 note about a traced twin (tool/cutrace-nvcc/PtxasNotes.h): the wrapper names the
// twins whose wgmma ptxas serialized, once each, and leaves notes about other functions alone.
TEST(PtxasNotes, SerializedTwinsAreNamedOnceAndOriginalsIgnored) {
  const std::string Note = "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async "
                           "instructions are serialized due to non wgmma instructions defining "
                           "accumulator registers of a wgmma between start and end of the "
                           "pipeline stage in the function '";
  const std::string Messages = "x.cu(53): warning #20012-D: something else\n" + Note +
                               "_ZN7cutlass28device_kernel_cutrace_tracedINS_4gemmE'\n" + Note +
                               "_ZN7cutlass13device_kernelINS_4gemmE'\n" + Note +
                               "_ZN7cutlass28device_kernel_cutrace_tracedINS_4gemmE'\n";
  const std::vector<std::string> Twins = cutrace::serializedTwins(Messages);
  ASSERT_EQ(Twins, std::vector<std::string>{"_ZN7cutlass28device_kernel_cutrace_tracedINS_4gemmE"});
  const std::string Warning = cutrace::serializedTwinsWarning(Twins);
  EXPECT_NE(Warning.find("cutrace-nvcc: warning: ptxas serialized the wgmma instructions of 1 "
                         "traced twin (C7515 above)"),
            std::string::npos)
      << Warning;
  EXPECT_NE(Warning.find("TRACE_SAMPLE_REST"), std::string::npos) << Warning;
  EXPECT_TRUE(cutrace::serializedTwins("ptxas info : Used 168 registers\n" + Note +
                                       "_Z13ws_wgmma_gemmPK6__half'\n")
                  .empty());
  EXPECT_EQ(cutrace::serializedTwinsWarning({}), "");
}

// A traced copy holds each kernel twice (original and twin), and nvcc warns in both at the user's
// line: each warning is passed on once, everything else as nvcc wrote it.
TEST(CompilerMessages, EachWarningOfTheOriginalAndItsTwinIsShownOnce) {
  const std::string Warning = "saxpy.cu(5): warning #177-D: variable \"unused\" was declared but "
                              "never referenced\n      int unused;\n          ^\n\n";
  const std::string Remark =
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n";
  const std::string Other = "saxpy.cu(9): warning #550-D: variable \"v\" was set but never used\n"
                            "      int v;\n          ^\n\n";
  EXPECT_EQ(cutrace::withoutRepeatedWarnings(Warning + Remark + Warning + Other + Other),
            Warning + Remark + Other);
  EXPECT_EQ(cutrace::withoutRepeatedWarnings("ptxas info : x\n\nptxas info : x\n\n"),
            "ptxas info : x\n\nptxas info : x\n\n");
}

TEST(CompilerMessages, LinkWithoutTheRuntimeSaysWhyAndWhatToAdd) {
  const std::string Link = "/usr/bin/ld: build/kernels.o: in function `__cutrace_register':\n"
                           "kernels.cu:(.text+0x1d): undefined reference to "
                           "`cutrace::registerTwin(void const*, void const*, char const*, "
                           "unsigned int)'\ncollect2: error: ld returned 1 exit status\n";
  const std::string Note = cutrace::missingRuntimeNote(Link);
  EXPECT_NE(Note.find("this link does not have it"), std::string::npos) << Note;
  EXPECT_NE(Note.find("cutrace-nvcc --cutrace-libs"), std::string::npos) << Note;
  EXPECT_EQ(cutrace::missingRuntimeNote("undefined reference to `main'\n"), "");
}

// A kernel and its twin as nvcc -ptx -lineinfo writes them: the twin's loop (k.cu:5) holds the
// kernel's 4 instructions plus 3 from cutrace's own header and a wgmma; a second loop only the
// twin has (a sampled copy); the kernel's other loop, at line 9, is the same in both.
constexpr const char *TwoLoopsPtx = R"(
.visible .entry _Z1kPfi(
	.param .u64 _Z1kPfi_param_0
)
{
	.reg .b32 	%r<9>;
	.loc	1 4 3
	mov.u32 	%r1, 0;
$L__BB0_1:
	.loc	1 5 5
	add.s32 	%r1, %r1, 1;
	.loc	1 6 5
	wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 0;
	setp.lt.s32 	%p1, %r1, 8;
	@%p1 bra 	$L__BB0_1;
$L__BB0_2:
	.loc	1 9 5
	add.s32 	%r2, %r2, 1;
	@%p2 bra.uni 	$L__BB0_2;
	ret;
}
.visible .entry _Z16k_cutrace_tracedPfiPN7cutrace5SlotsE(
	.param .u64 _Z16k_cutrace_tracedPfiPN7cutrace5SlotsE_param_0
)
{
	.loc	1 4 3
	mov.u32 	%r1, 0;
$L__BB1_1:
	.loc	2 300 3
	mov.u64 	%rd5, %clock64;
	st.shared.u64 	[%rd6], %rd5;
	add.s32 	%r7, %r7, 1;
	.loc	1 5 5
	add.s32 	%r1, %r1, 1;
	.loc	1 6 5
	wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 0;
	setp.lt.s32 	%p1, %r1, 8;
	@%p1 bra 	$L__BB1_1;
$L__BB1_3:
	.loc	1 5 5
	add.s32 	%r1, %r1, 1;
	@%p3 bra 	$L__BB1_3;
$L__BB1_2:
	.loc	1 9 5
	add.s32 	%r2, %r2, 1;
	@%p2 bra.uni 	$L__BB1_2;
	ret;
}
	.file	1 "/src/k.cu"
	.file	2 "/opt/cutrace/include/cutrace/device.h"
)";

TEST(LoopCost, TwinLoopsArePairedWithTheKernelsBySourceLine) {
  std::vector<cutrace::LoopCost> Costs = cutrace::loopCosts(TwoLoopsPtx);
  ASSERT_EQ(Costs.size(), 3u);
  EXPECT_EQ(Costs[0].Kernel, "_Z1kPfi");
  EXPECT_EQ(Costs[0].File, "/src/k.cu");
  // Line 5 twice: the recorded loop (4 -> 7, wgmma) and the twin's own copy (0 -> 2).
  EXPECT_EQ(Costs[0].Line, 5u);
  EXPECT_EQ(Costs[0].Plain, 4u);
  EXPECT_EQ(Costs[0].Traced, 7u);
  EXPECT_TRUE(Costs[0].Wgmma);
  EXPECT_EQ(Costs[1].Line, 5u);
  EXPECT_EQ(Costs[1].Plain, 0u);
  EXPECT_EQ(Costs[1].Traced, 2u);
  EXPECT_EQ(Costs[2].Line, 9u);
  EXPECT_EQ(Costs[2].Plain, Costs[2].Traced);
}

TEST(LoopCost, ReportNamesEachLoopThatGainsAndWarnsAboveTheLimitWithWgmma) {
  std::vector<cutrace::LoopCost> Costs = cutrace::loopCosts(TwoLoopsPtx);
  const std::string Quiet = cutrace::loopCostReport(Costs, "sm_90a", 8);
  EXPECT_NE(Quiet.find("/src/k.cu:5: note: cutrace: recording adds 3 PTX instructions to this loop "
                       "of 'k': 4 -> 7 (sm_90a), wgmma in it"),
            std::string::npos)
      << Quiet;
  EXPECT_NE(Quiet.find("a copy of this loop the plain one has not"), std::string::npos) << Quiet;
  EXPECT_EQ(Quiet.find("k.cu:9"), std::string::npos) << Quiet; // nothing added there
  EXPECT_EQ(Quiet.find("warning"), std::string::npos) << Quiet;
  const std::string Loud = cutrace::loopCostReport(Costs, "sm_90a", 2);
  EXPECT_NE(Loud.find("/src/k.cu:5: warning: cutrace: 3 instructions added to a loop with wgmma "
                      "in 'k'"),
            std::string::npos)
      << Loud;
}

TEST(LoopCost, ASampledCopyOfALoopWithWgmmaIsWarnedAbout) {
  cutrace::LoopCost Recorded{"_Z1kPfi", "/src/k.cu", 5, 40, 60, true};
  cutrace::LoopCost Copy{"_Z1kPfi", "/src/k.cu", 5, 0, 41, true};
  cutrace::LoopCost CopyWithoutWgmma{"_Z1kPfi", "/src/k.cu", 9, 0, 12, false};
  const std::string Report =
      cutrace::loopCostReport({Recorded, Copy, CopyWithoutWgmma}, "sm_90a", 8);
  EXPECT_NE(Report.find("/src/k.cu:5: warning: cutrace: 'k' has two copies of this loop with wgmma "
                        "(a TRACE_SAMPLE)"),
            std::string::npos)
      << Report;
  EXPECT_NE(Report.find("record once per tile outside the loop instead"), std::string::npos)
      << Report;
  EXPECT_EQ(Report.find("k.cu:9: warning"), std::string::npos) << Report;
  EXPECT_NE(Report.find("k.cu:9: note"), std::string::npos) << Report;
}

// A CuTe-style template kernel: most of its instructions come from a header (cute.hpp), its
// k-loop's back edge is in the kernel's own file (t.cu:20), and an inline asm wait opens and
// closes a scope of its own with braces at the line's start, as CUTLASS's asm text writes them.
constexpr const char *CuteStylePtx = R"(
.visible .entry _ZN4cute6kernelIiEEvPf(
	.param .u64 p
)
{
	.loc	1 12 3
	mov.u32 	%r1, 0;
$L__BB0_1:
	.loc	2 40 7, function_name $L__info_string0, inlined_at 1 21 5
	add.s32 	%r2, %r2, 3;
	mul.lo.s32 	%r3, %r2, 5;
	// begin inline asm
{
.reg .pred P1;
LAB_WAIT:
mbarrier.try_wait.parity.shared::cta.b64 P1, [%r4], %r5;
@P1 bra DONE;
bra LAB_WAIT;
DONE:
}
	// end inline asm
	.loc	2 41 7, function_name $L__info_string0, inlined_at 1 21 5
	wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 0;
	.loc	1 20 3
	setp.lt.s32 	%p1, %r1, 8;
	@%p1 bra 	$L__BB0_1;
	ret;
}
.visible .entry _ZN4cute21kernel_cutrace_tracedIiEEvPfPN7cutrace5SlotsE(
	.param .u64 p
)
{
	.loc	1 12 3
	mov.u32 	%r1, 0;
$L__BB1_1:
	.loc	3 300 3
	mov.u64 	%rd5, %clock64;
	.loc	2 40 7, function_name $L__info_string0, inlined_at 1 21 5
	add.s32 	%r2, %r2, 3;
	mul.lo.s32 	%r3, %r2, 5;
	// begin inline asm
{
.reg .pred P1;
LAB_WAIT:
mbarrier.try_wait.parity.shared::cta.b64 P1, [%r4], %r5;
@P1 bra DONE;
bra LAB_WAIT;
DONE:
}
	// end inline asm
	.loc	2 41 7, function_name $L__info_string0, inlined_at 1 21 5
	wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 0;
	.loc	3 310 3
	st.global.v2.u32 	[%rd6], {%r8, %r9};
	.loc	1 20 3
	setp.lt.s32 	%p1, %r1, 8;
	@%p1 bra 	$L__BB1_1;
	ret;
}
	.file	1 "/src/t.cu"
	.file	2 "/opt/cutlass/include/cute/cute.hpp"
	.file	3 "/opt/cutrace/include/cutrace/device.h"
)";

TEST(LoopCost, AKernelOfInlineAsmScopesAndHeaderCodeHasItsLoopAtItsOwnLine) {
  std::vector<cutrace::PtxFunction> Functions = cutrace::ptxFunctions(CuteStylePtx);
  ASSERT_EQ(Functions.size(), 2u);
  // The asm's `}` at the line's start does not end the function: its loop is found.
  ASSERT_EQ(Functions[0].Loops.size(), 1u);
  EXPECT_EQ(Functions[0].Loops[0].File, "/src/t.cu"); // not cute.hpp, where most code is from
  EXPECT_EQ(Functions[0].Loops[0].Line, 20u);
  std::vector<cutrace::LoopCost> Costs = cutrace::loopCosts(CuteStylePtx);
  ASSERT_EQ(Costs.size(), 1u);
  EXPECT_EQ(Costs[0].Plain + 2, Costs[0].Traced);
  EXPECT_TRUE(Costs[0].Wgmma);
  // A nested template name is shown as its qualified name.
  const std::string Report = cutrace::loopCostReport(Costs, "sm_90a", 1);
  EXPECT_NE(Report.find("/src/t.cu:20: note: cutrace: recording adds 2 PTX instructions to this "
                        "loop of 'cute::kernel<...>'"),
            std::string::npos)
      << Report;
}

TEST(LoopCost, PtxCommandKeepsTheFlagsAndDropsOutputsInputsAndLinkInputs) {
  std::vector<std::string> Args = cutrace::ptxArguments(
      {"-std=c++17", "-arch=sm_90a", "-c", "gen/a.cu", "gen/b.cu", "-o", "a.o", "-MD", "-MF",
       "a.d", "-DCUTRACE_TRACED", "-I/rt/include", "libcutrace.a"},
      {"gen/a.cu", "gen/b.cu"}, "gen/a.cu", "gen/a.cu.ptx");
  EXPECT_EQ(Args, (std::vector<std::string>{"-std=c++17", "-arch=sm_90a", "-DCUTRACE_TRACED",
                                            "-I/rt/include", "-ptx", "-lineinfo", "gen/a.cu",
                                            "-o", "gen/a.cu.ptx"}));
}
