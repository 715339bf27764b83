// The payload rule (docs/annotations.md, "Side effects"; rewriter/model/SideEffects.h): which calls a
// payload, lead or condition may make, judged on real Clang parses in both CUDA passes.
#include "model/SourceModel.h"
#include "support/scratch_dir.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

constexpr compat::CudaPass BothPasses[] = {compat::CudaPass::Host, compat::CudaPass::Device};

/// For every annotation the parse saw, by line: its side-effect message, empty when accepted.
std::map<unsigned, std::string> judgedLines(const std::string &Source, compat::CudaPass Pass) {
  fs::path File = test_support::scratch_dir("cutrace_side_effects_") / "k.cu";
  std::ofstream(File) << Source;
  ParseOutcome P = parseSource(File.string(), compat::ParseOptions(), Pass);
  EXPECT_TRUE(P.Ran) << compat::passName(Pass).str() << ": " << P.FailureReason;
  std::map<unsigned, std::string> Lines;
  for (const AnnotationUse &Use : P.Model.Uses) {
    unsigned Line = 1 + std::count(Source.begin(), Source.begin() + Use.MacroOffset, '\n');
    std::string &Message = Lines[Line];
    for (const Problem &Pr : Use.Problems)
      if (Pr.Message.find("has side effects") != std::string::npos)
        Message = Pr.Message;
  }
  return Lines;
}

/// A kernel with one TRACE_RECORD per payload, on lines 3, 4, ...
std::string kernelRecording(const std::vector<std::string> &Payloads,
                            const std::string &Before = "") {
  std::string Source = "#include <cutrace/trace.h>\n" + Before +
                       "__global__ void k(float f, int i, unsigned u, double d, int *p, "
                       "const float *in) {\n";
  for (const std::string &Payload : Payloads)
    Source += "  TRACE_RECORD(\"e\", " + Payload + ");\n";
  return Source + "}\n";
}

unsigned firstPayloadLine(const std::string &Before) {
  return 3 + std::count(Before.begin(), Before.end(), '\n');
}

// The families CUDA documents as functions of their arguments, declared in CUDA's headers.
TEST(SideEffects, CudaPureFamiliesAreAccepted) {
  const std::string Before = "#include <cuda_fp16.h>\n";
  const std::vector<std::string> Pure = {
      "__float_as_int(f)",
      "__float_as_int(__int_as_float(i))",
      "__float2int_rn(f)",
      "(int)__float2uint_rz(f)",
      "__double2hiint(d)",
      "__double2loint(__hiloint2double(i, i))",
      "__float_as_int(fmaxf(f, 1.0f) + fminf(f, 2.0f))",
      "__float_as_int(sqrtf(f) + expf(f))",
      "__float_as_int(__expf(f) + __sinf(f) + __saturatef(f))",
      "__float_as_int(__fmul_rn(f, f) + __fmaf_rz(f, f, f))",
      "__double2hiint(__dadd_rd(d, d))",
      "min(i, 4) + max(i, 4) + (int)umin(u, 4u) + abs(i)",
      "__popc(u) + __popcll(u) + __clz(i) + __ffs(i) + (int)__brev(u)",
      "(int)__byte_perm(u, u, 0x3210) + (int)__funnelshift_l(u, u, 3) + (int)__umulhi(u, u)",
      "__mul24(i, i) + (int)__sad(i, i, u)",
      "(int)__vadd2(u, u) + (int)__vcmpeq4(u, u)",
      "__float_as_int(__ldg(in))",
      "isnan(f) + signbit(f)",
      "__float_as_int(nanf(\"\"))",
      "__float_as_int(__half2float(__hadd(__float2half(f), __float2half(f))))",
      "__float_as_int(make_float2(f, f).x)",
      "__float_as_int(fabsf(f) + floorf(f) + rintf(f))"};
  for (compat::CudaPass Pass : BothPasses) {
    std::map<unsigned, std::string> Lines = judgedLines(kernelRecording(Pure, Before), Pass);
    ASSERT_EQ(Lines.size(), Pure.size()) << compat::passName(Pass).str();
    unsigned Line = firstPayloadLine(Before);
    for (const std::string &Payload : Pure)
      EXPECT_EQ(Lines[Line++], "") << compat::passName(Pass).str() << ": " << Payload;
  }
}

// Atomics, warp collectives (they wait for other lanes), barriers, fences, clocks, printf,
// allocation, stores, and math functions that write results through a pointer.
TEST(SideEffects, CudaFunctionsWithEffectsAreRefusedByName) {
  const std::string Before = "#include <cstdio>\n";
  const std::vector<std::pair<std::string, std::string>> Refused = {
      {"atomicAdd(p, 1)", "atomicAdd"},
      {"atomicCAS(p, 0, 1)", "atomicCAS"},
      {"atomicExch(p, 1)", "atomicExch"},
      {"__shfl_sync(0xffffffffu, i, 0)", "__shfl_sync"},
      {"__shfl_down_sync(0xffffffffu, i, 1)", "__shfl_down_sync"},
      {"(int)__ballot_sync(0xffffffffu, i)", "__ballot_sync"},
      {"(int)__activemask()", "__activemask"},
      {"__syncthreads_count(i)", "__syncthreads_count"},
      {"(__syncwarp(), 0)", "__syncwarp"},
      {"(__threadfence(), 0)", "__threadfence"},
      {"(int)clock64()", "clock64"},
      {"printf(\"x\")", "printf"},
      {"malloc(4) != nullptr", "malloc"},
      {"(__stcs(p, 1), 0)", "__stcs"},
      {"__float_as_int(modff(f, (float *)in))", "modff"},
      {"(sincosf(f, (float *)in, (float *)in + 1), 0)", "sincosf"},
      {"__float_as_int(frexpf(f, p))", "frexpf"}};
  std::vector<std::string> Payloads;
  for (const auto &[Payload, Callee] : Refused)
    Payloads.push_back(Payload);
  for (compat::CudaPass Pass : BothPasses) {
    std::map<unsigned, std::string> Lines = judgedLines(kernelRecording(Payloads, Before), Pass);
    ASSERT_EQ(Lines.size(), Refused.size()) << compat::passName(Pass).str();
    unsigned Line = firstPayloadLine(Before);
    for (const auto &[Payload, Callee] : Refused)
      EXPECT_NE(Lines[Line++].find("call to '" + Callee + "' may change program state"),
                std::string::npos)
          << compat::passName(Pass).str() << ": " << Payload;
  }
}

// A body may write its own locals, parameters and (constructors) its own object; nothing else.
TEST(SideEffects, BodiesMayWriteOnlyWhatTheyOwn) {
  const std::string Before = R"(
__device__ int g;
struct Box { int v; __device__ Box(int a) { v = a; } __device__ int get() const { return v; } };
struct Counter { int v; __device__ void bump() { ++v; } };
__device__ inline int locals(int a) { int t[2]; t[0] = a; t[1] = a++; return t[0] + a; }
__device__ inline int global(int a) { g = a; return a; }
__device__ inline int member(int a) { Counter c{a}; c.bump(); return c.v; }
__device__ inline int captured(int a) { int t = 0; [&] { t = a; }(); return t; }
__device__ inline int by_copy(int a) { return [a] { return a * 2; }(); }
__device__ inline int static_init(int a) { static int s = g; return s + a; }
__device__ inline int reference(int &a) { return a += 1; }
)";
  const std::vector<std::pair<std::string, std::string>> Cases = {
      {"locals(i)", ""},
      {"Box(i).get()", ""},
      {"by_copy(i)", ""},
      {"global(i)", "('global' writes to global 'g'"},
      {"member(i)", "('member' calls 'bump', which writes through a pointer or reference"},
      {"captured(i)", "('captured' calls a lambda, which writes to captured variable 't'"},
      {"static_init(i)", "('static_init' initializes static variable 's'"},
      {"reference(*p)", "('reference' writes through a pointer or reference"}};
  std::vector<std::string> Payloads;
  for (const auto &[Payload, Why] : Cases)
    Payloads.push_back(Payload);
  std::map<unsigned, std::string> Lines =
      judgedLines(kernelRecording(Payloads, Before), compat::CudaPass::Device);
  ASSERT_EQ(Lines.size(), Cases.size());
  unsigned Line = firstPayloadLine(Before);
  for (const auto &[Payload, Why] : Cases) {
    const std::string &Message = Lines[Line++];
    if (Why.empty())
      EXPECT_EQ(Message, "") << Payload;
    else
      EXPECT_NE(Message.find(Why), std::string::npos) << Payload << ": " << Message;
  }
}

// Calls whose target the parse cannot see, effects hidden in destructors, and operands that are
// never evaluated.
TEST(SideEffects, HiddenCallsAreRefusedAndUnevaluatedOperandsAreFree) {
  const std::string Before = R"(
struct Shape { __device__ virtual int area() const { return 1; } };
struct Square final : Shape { __device__ int area() const override { return 4; } };
struct Guard { int *c; __device__ ~Guard() { atomicAdd(c, 1); } __device__ int value() const { return 0; } };
__device__ inline int twice(int a) { return 2 * a; }
)";
  const std::vector<std::pair<std::string, std::string>> Cases = {
      {"((const Shape *)in)->area()", "virtual call to 'area' may change program state"},
      {"((const Square *)in)->area()", ""},
      {"((int (*)(int))in)(i)", "call through a function pointer may change program state"},
      {"Guard{p}.value()", "destruction of a temporary may change program state ('~Guard' calls "
                           "'atomicAdd'"},
      {"(int)sizeof(atomicAdd(p, 1))", ""},
      {"(int)noexcept(twice(i))", ""}};
  std::vector<std::string> Payloads;
  for (const auto &[Payload, Why] : Cases)
    Payloads.push_back(Payload);
  std::map<unsigned, std::string> Lines =
      judgedLines(kernelRecording(Payloads, Before), compat::CudaPass::Device);
  ASSERT_EQ(Lines.size(), Cases.size());
  unsigned Line = firstPayloadLine(Before);
  for (const auto &[Payload, Why] : Cases) {
    const std::string &Message = Lines[Line++];
    if (Why.empty())
      EXPECT_EQ(Message, "") << Payload;
    else
      EXPECT_NE(Message.find(Why), std::string::npos) << Payload << ": " << Message;
  }
}

// Calls are followed 16 deep; a deeper chain is refused, not assumed pure.
TEST(SideEffects, CallChainsDeeperThanTheBoundAreRefused) {
  std::string Before = "__device__ inline int f0(int a) { return a + 1; }\n";
  for (int I = 1; I <= 17; ++I)
    Before += "__device__ inline int f" + std::to_string(I) + "(int a) { return f" +
              std::to_string(I - 1) + "(a) + 1; }\n";
  std::map<unsigned, std::string> Lines =
      judgedLines(kernelRecording({"f15(i)", "f17(i)"}, Before), compat::CudaPass::Device);
  unsigned Line = firstPayloadLine(Before);
  EXPECT_EQ(Lines[Line], "");
  EXPECT_NE(Lines[Line + 1].find("calls functions nested more than 16 deep"), std::string::npos)
      << Lines[Line + 1];
}

// The launch configuration is judged by the same rule: a pure helper there is not an effect.
TEST(SideEffects, LaunchConfigurationUsesTheSameJudgement) {
  const std::string Source = R"(#include <cutrace/trace.h>
__global__ void k(int *x) { TRACE_RECORD("e"); }
inline int blocks_for(int n) { return (n + 255) / 256; }
int next_grid();
void run(int *x, int n) {
  k<<<blocks_for(n), 256>>>(x);
  k<<<next_grid(), 256>>>(x);
}
)";
  fs::path File = test_support::scratch_dir("cutrace_side_effects_") / "launch.cu";
  std::ofstream(File) << Source;
  ParseOutcome P = parseSource(File.string(), compat::ParseOptions(), compat::CudaPass::Host);
  ASSERT_TRUE(P.Ran) << P.FailureReason;
  ASSERT_EQ(P.Model.Launches.size(), 2u);
  EXPECT_FALSE(P.Model.Launches[0].ConfigHasSideEffects) << "blocks_for is pure";
  EXPECT_TRUE(P.Model.Launches[1].ConfigHasSideEffects) << "next_grid is not defined here";
}

} // namespace
