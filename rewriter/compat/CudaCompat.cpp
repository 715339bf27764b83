#include "compat/CudaCompat.h"
#include "compat/EmbeddedHeaders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstdlib>
#include <map>
#include <mutex>

#ifndef CUTRACE_CLANG_RESOURCE_DIR
#define CUTRACE_CLANG_RESOURCE_DIR ""
#endif

namespace cutrace::compat {
namespace {
constexpr llvm::StringLiteral VirtualInclude = "/__cutrace__/include";
constexpr llvm::StringLiteral VirtualStubs = "/__cutrace__/stubs";
} // namespace

llvm::StringRef passName(CudaPass Pass) { return Pass == CudaPass::Host ? "host" : "device"; }

std::string clangResourceDir() {
  if (const char *Env = std::getenv("CUTRACE_CLANG_RESOURCE_DIR"))
    return Env;
  std::string Configured = CUTRACE_CLANG_RESOURCE_DIR;
  if (!Configured.empty() && llvm::sys::fs::is_directory(Configured))
    return Configured;
  for (const char *Candidate : {"/usr/lib/llvm-19/lib/clang/19", "/usr/lib/clang/19"})
    if (llvm::sys::fs::is_directory(Candidate))
      return Candidate;
  return Configured;
}

std::vector<std::string> toolchainHeaderDirs(const ParseOptions &Options) {
  std::vector<std::string> Dirs;
  for (const std::string &Dir : {Options.CudaPath, clangResourceDir(), std::string("/usr/include"),
                                 std::string("/usr/lib/gcc")}) {
    llvm::SmallString<256> Real;
    if (Dir.empty() || llvm::sys::fs::real_path(Dir, Real))
      continue;
    Real += "/";
    Dirs.push_back(Real.str().str());
  }
  return Dirs;
}

namespace {

/// "13.0.88" -> {13, 0, 88}; the build number may be missing.
std::optional<CudaVersion> versionOf(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  Text.trim().split(Parts, '.');
  CudaVersion V;
  if (Parts.size() < 2 || Parts[0].getAsInteger(10, V.Major) || Parts[1].getAsInteger(10, V.Minor))
    return std::nullopt;
  if (Parts.size() > 2 && Parts[2].getAsInteger(10, V.Build))
    V.Build = 0;
  return V;
}

std::optional<CudaVersion> readCudaVersion(llvm::StringRef CudaPath) {
  llvm::SmallString<256> Json(CudaPath);
  llvm::sys::path::append(Json, "version.json");
  if (auto Buffer = llvm::MemoryBuffer::getFile(Json)) {
    llvm::Expected<llvm::json::Value> Value = llvm::json::parse((*Buffer)->getBuffer());
    if (!Value)
      llvm::consumeError(Value.takeError());
    else if (const llvm::json::Object *Root = Value->getAsObject())
      if (const llvm::json::Object *Nvcc = Root->getObject("cuda_nvcc"))
        if (std::optional<llvm::StringRef> Version = Nvcc->getString("version"))
          if (std::optional<CudaVersion> V = versionOf(*Version))
            return V;
  }
  // A toolkit assembled from pip wheels names nvcc's version in its dist-info folder.
  llvm::SmallString<256> DistInfo(CudaPath);
  llvm::sys::path::append(DistInfo, "dist-info");
  std::error_code Error;
  for (llvm::sys::fs::directory_iterator It(DistInfo, Error), End; !Error && It != End;
       It.increment(Error)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.consume_front("nvidia_cuda_nvcc-") && Name.consume_back(".dist-info"))
      if (std::optional<CudaVersion> V = versionOf(Name))
        return V;
  }
  // CUDA_VERSION is major * 1000 + minor * 10; it has no build number.
  llvm::SmallString<256> Header(CudaPath);
  llvm::sys::path::append(Header, "include", "cuda.h");
  if (auto Buffer = llvm::MemoryBuffer::getFile(Header)) {
    llvm::StringRef Text = (*Buffer)->getBuffer();
    size_t At = Text.find("#define CUDA_VERSION ");
    unsigned Number = 0;
    if (At != llvm::StringRef::npos &&
        !Text.substr(At + 21).take_while(llvm::isDigit).getAsInteger(10, Number) && Number)
      return CudaVersion{Number / 1000, Number % 1000 / 10, 0};
  }
  return std::nullopt;
}

/// The arch numbers nvcc 13 compiles for (`nvcc --list-gpu-code`), and those with a/f variants.
constexpr unsigned NvccArchs[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
/// The arch numbers Clang 19 can target, at or above nvcc 13's minimum.
constexpr unsigned ClangArchs[] = {75, 80, 86, 87, 89, 90};

struct ArchName {
  unsigned Number = 0; // 90 for sm_90a
  char Suffix = 0;     // 'a', 'f' or 0
};

/// sm_NN[a|f] or compute_NN[a|f]; nothing for anything else.
std::optional<ArchName> splitArch(llvm::StringRef Arch) {
  if (!Arch.consume_front("sm_") && !Arch.consume_front("compute_"))
    return std::nullopt;
  ArchName N;
  if (Arch.ends_with("a") || Arch.ends_with("f")) {
    N.Suffix = Arch.back();
    Arch = Arch.drop_back();
  }
  if (Arch.empty() || !llvm::all_of(Arch, llvm::isDigit) || Arch.getAsInteger(10, N.Number))
    return std::nullopt;
  return N;
}

bool nvccCompiles(const ArchName &N) {
  if (!llvm::is_contained(NvccArchs, N.Number))
    return false;
  if (N.Suffix == 'a')
    return N.Number >= 90;
  return N.Suffix == 0 || N.Number >= 100;
}

std::string spell(const ArchName &N) {
  return "sm_" + std::to_string(N.Number) + (N.Suffix ? std::string(1, N.Suffix) : "");
}

/// __CUDA_ARCH_LIST__ as nvcc spells it: the distinct arch values, ascending, comma-separated.
std::string archList(const ParseOptions &Options) {
  std::vector<unsigned> Values;
  for (const std::string &Arch :
       Options.GpuArchs.empty() ? std::vector<std::string>{Options.GpuArch} : Options.GpuArchs)
    if (unsigned Value = archParse(Arch).ArchValue)
      Values.push_back(Value);
  llvm::sort(Values);
  Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
  std::string List;
  for (unsigned V : Values)
    List += (List.empty() ? "" : ",") + std::to_string(V);
  return List;
}

} // namespace

std::optional<CudaVersion> cudaVersion(llvm::StringRef CudaPath) {
  // The host and device passes ask at once, from threads of their own: an entry is read and
  // filled under the lock, so that no pass sees another's entry before its value is there.
  static std::mutex Lock;
  static std::map<std::string, std::optional<CudaVersion>> Known;
  std::lock_guard<std::mutex> Hold(Lock);
  auto [It, Inserted] = Known.try_emplace(CudaPath.str());
  if (Inserted)
    It->second = readCudaVersion(CudaPath);
  return It->second;
}

ArchParse archParse(llvm::StringRef Arch) {
  ArchParse P;
  P.ClangArch = Arch.str();
  std::optional<ArchName> N = splitArch(Arch);
  if (!N)
    return P;
  P.ArchValue = N->Number * 10;
  P.ClangArch = spell(*N);
  if (!nvccCompiles(*N))
    return P;
  std::string Value = std::to_string(P.ArchValue);
  if (!llvm::is_contained(ClangArchs, N->Number)) {
    // The nearest lower arch Clang 19 knows; a/f features are defined below, not by Clang.
    unsigned Nearest = 0;
    for (unsigned C : ClangArchs)
      if (C <= N->Number)
        Nearest = C;
    P.ClangArch = "sm_" + std::to_string(Nearest);
    P.Fallback = true;
    P.Defines = {"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=" + Value};
  }
  // Clang 19 defines __CUDA_ARCH_FEAT_SM90_ALL for sm_90a itself, and none of these otherwise.
  if (N->Suffix == 'a' && P.Fallback)
    P.Defines.push_back("-D__CUDA_ARCH_FEAT_SM" + std::to_string(N->Number) + "_ALL");
  if (N->Suffix == 'a')
    P.Defines.push_back("-D__CUDA_ARCH_SPECIFIC__=" + Value);
  if (N->Suffix)
    P.Defines.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" + Value);
  return P;
}

std::vector<std::string> nvccPredefines(const ParseOptions &Options, CudaPass Pass) {
  std::vector<std::string> Defines = {"-D__NVCC__", "-D__NVCC_DIAG_PRAGMA_SUPPORT__=1",
                                      "-D__CUDACC_DEVICE_ATOMIC_BUILTINS__=1"};
  if (std::optional<CudaVersion> V = cudaVersion(Options.CudaPath)) {
    std::string Major = std::to_string(V->Major), Minor = std::to_string(V->Minor);
    for (const std::string &D :
         {"-D__CUDACC_VER_MAJOR__=" + Major, "-D__CUDACC_VER_MINOR__=" + Minor,
          "-D__CUDACC_VER_BUILD__=" + std::to_string(V->Build), "-D__CUDA_API_VER_MAJOR__=" + Major,
          "-D__CUDA_API_VER_MINOR__=" + Minor})
      Defines.push_back(D);
  }
  std::string List = archList(Options);
  if (!List.empty())
    Defines.push_back("-D__CUDA_ARCH_LIST__=" + List);
  if (Pass == CudaPass::Device)
    for (std::string &D : archParse(Options.GpuArch).Defines)
      Defines.push_back(std::move(D));
  if (Options.Traced)
    Defines.push_back("-DCUTRACE_TRACED");
  return Defines;
}

std::vector<std::string> distinctParses(llvm::ArrayRef<std::string> Archs) {
  std::vector<std::string> Distinct;
  std::vector<std::pair<std::string, std::vector<std::string>>> Seen;
  for (const std::string &Arch : Archs) {
    ArchParse P = archParse(Arch);
    std::pair<std::string, std::vector<std::string>> Key{P.ClangArch, P.Defines};
    if (llvm::is_contained(Seen, Key))
      continue;
    Seen.push_back(std::move(Key));
    Distinct.push_back(Arch);
  }
  return Distinct;
}

std::vector<std::string> parseCommand(const ParseOptions &Options, CudaPass Pass,
                                      llvm::StringRef File) {
  std::vector<std::string> Args = {
      "clang++", "-fsyntax-only", "-x", "cuda", "-std=c++17", "--cuda-path=" + Options.CudaPath,
      "--cuda-gpu-arch=" + archParse(Options.GpuArch).ClangArch,
      Pass == CudaPass::Host ? "--cuda-host-only" : "--cuda-device-only",
      "-Wno-unknown-cuda-version", "-w", "-resource-dir", clangResourceDir(),
      // The tool's annotation header first, so the parse view is the one seen.
      "-I" + VirtualInclude.str(), "-DCUTRACE_TOOL_PARSE", "-isystem",
      Options.CudaPath + "/include/cccl",
      // Stubs for headers CUDA 13 removed but clang's CUDA wrapper still includes.
      "-isystem", VirtualStubs.str(), "-include",
      VirtualStubs.str() + "/cutrace_cuda13_intrinsics.h", "-ferror-limit=0",
      // nvcc 13 nests blocks, parentheses and brackets far deeper than Clang's default 256;
      // Clang 19 counts each kind in 16 bits, so 65535 is as deep as it can follow.
      "-fbracket-depth=" + std::to_string(MaxBracketDepth)};
  // nvcc's predefined macros before the user's flags, so a user's -U/-D still wins.
  for (std::string &D : nvccPredefines(Options, Pass))
    Args.push_back(std::move(D));
  // Later -std flags win, so user flags come after the defaults.
  Args.insert(Args.end(), Options.ExtraArgs.begin(), Options.ExtraArgs.end());
  Args.push_back(File.str());
  return Args;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> parseFileSystem() {
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  auto Add = [&](llvm::StringRef Path, llvm::StringRef Text) {
    Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBuffer(Text, Path));
  };
  Add(VirtualInclude.str() + "/cutrace/trace.h", EmbeddedTraceHeader);
  Add(VirtualStubs.str() + "/texture_fetch_functions.h", "#pragma once\n");
  Add(VirtualStubs.str() + "/cutrace_cuda13_intrinsics.h", EmbeddedIntrinsicsHeader);
  // What the parse cache precompiles (model/PreludeCache.h): the -include files alone.
  Add("/__cutrace__/prelude.cu", "");
  auto Overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  Overlay->pushOverlay(Memory);
  return Overlay;
}

namespace {

/// The value of an option spelled `-opt=V`, `-opt V` or, for nvcc's long forms, `--opt=V`.
std::optional<std::string> optionValue(llvm::ArrayRef<std::string> Command, size_t &I,
                                       llvm::ArrayRef<llvm::StringRef> Names) {
  llvm::StringRef Arg = Command[I];
  for (llvm::StringRef Name : Names) {
    if (Arg == Name && I + 1 < Command.size())
      return Command[++I];
    if (Arg.starts_with(Name) && Arg.drop_front(Name.size()).starts_with("="))
      return Arg.drop_front(Name.size() + 1).str();
  }
  return std::nullopt;
}

/// `arch=compute_80,code=[sm_80,compute_80]` -> compute_80 (the virtual arch a pass compiles).
std::string gencodeArch(llvm::StringRef Value) {
  size_t At = Value.find("arch=");
  if (At == llvm::StringRef::npos)
    return "";
  return Value.substr(At + 5).take_until([](char C) { return C == ',' || C == ' '; }).str();
}

void addArch(BuildArchs &Out, llvm::StringRef Arch) {
  std::optional<ArchName> N = splitArch(Arch.trim());
  std::string Name = N ? spell(*N) : Arch.trim().str();
  if (Name.empty())
    return;
  std::vector<std::string> &Into = N && nvccCompiles(*N) ? Out.Archs : Out.Dropped;
  if (!llvm::is_contained(Into, Name))
    Into.push_back(Name);
}

/// -arch=sm_90a (without -gencode) makes nvcc compile compute_90 and compute_90a
/// (measured with nvcc 13 --dryrun); all and all-major are nvcc 13's lists.
void addArchOption(BuildArchs &Out, llvm::StringRef Value) {
  if (Value == "all" || Value == "all-major") {
    for (unsigned Number : NvccArchs)
      if (Value == "all" || Number % 10 == 0 || Number == 75)
        addArch(Out, "sm_" + std::to_string(Number));
    return;
  }
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Value.split(Parts, ',');
  for (llvm::StringRef Part : Parts) {
    std::optional<ArchName> N = splitArch(Part.trim());
    if (N && N->Suffix)
      addArch(Out, "sm_" + std::to_string(N->Number));
    addArch(Out, Part);
  }
}

} // namespace

BuildArchs buildArchsOf(llvm::ArrayRef<std::string> Command) {
  BuildArchs Out;
  std::string LastArch; // nvcc keeps the last -arch
  for (size_t I = 1; I < Command.size(); ++I) {
    if (std::optional<std::string> V = optionValue(Command, I, {"-arch", "--gpu-architecture"}))
      LastArch = *V;
    else if (std::optional<std::string> V =
                 optionValue(Command, I, {"-gencode", "--generate-code"}))
      addArch(Out, gencodeArch(*V));
    else if (std::optional<std::string> V =
                 optionValue(Command, I, {"--cuda-gpu-arch", "--offload-arch"}))
      addArchOption(Out, *V);
  }
  if (!LastArch.empty() && LastArch != "native")
    addArchOption(Out, LastArch);
  return Out;
}

std::vector<std::string> translateCompileCommand(llvm::ArrayRef<std::string> Command) {
  std::vector<std::string> Kept;
  // nvcc predefines a macro for each of these dialect flags (measured with --dryrun).
  static const std::pair<const char *, const char *> Dialect[] = {
      {"-rdc=true", "__CUDACC_RDC__"},
      {"--relocatable-device-code=true", "__CUDACC_RDC__"},
      {"-dc", "__CUDACC_RDC__"},
      {"--device-c", "__CUDACC_RDC__"},
      {"--extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
      {"-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
      {"--expt-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
      {"-expt-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
      {"--expt-relaxed-constexpr", "__CUDACC_RELAXED_CONSTEXPR__"},
      {"-expt-relaxed-constexpr", "__CUDACC_RELAXED_CONSTEXPR__"},
      {"-G", "__CUDACC_DEBUG__"},
      {"--device-debug", "__CUDACC_DEBUG__"}};
  for (size_t I = 1; I < Command.size(); ++I)
    for (const auto &[Flag, Macro] : Dialect)
      if (Command[I] == Flag && !llvm::is_contained(Kept, std::string("-D") + Macro))
        Kept.push_back(std::string("-D") + Macro);
  // Separate compilation is what lets device code launch kernels (dynamic parallelism); Clang
  // rejects such launches without its own flag for it.
  if (llvm::is_contained(Kept, "-D__CUDACC_RDC__"))
    Kept.push_back("-fgpu-rdc");
  static const char *const WithValue[] = {"-D", "-U", "-I", "-isystem", "-include"};
  for (size_t I = 1; I < Command.size(); ++I) {
    llvm::StringRef Arg = Command[I];
    bool Matched = false;
    for (llvm::StringRef Flag : WithValue) {
      if (Arg == Flag && I + 1 < Command.size()) {
        Kept.push_back(Arg.str());
        Kept.push_back(Command[++I]);
        Matched = true;
      } else if (Arg.starts_with(Flag) && Arg.size() > Flag.size() && Flag.size() == 2) {
        Kept.push_back(Arg.str());
        Matched = true;
      }
      if (Matched)
        break;
    }
    if (!Matched && (Arg.starts_with("-std=") || Arg.starts_with("--std=")))
      Kept.push_back(Arg.starts_with("--") ? Arg.drop_front().str() : Arg.str());
    // nvcc spells the standard `-std c++17` too.
    if (!Matched && Arg == "-std" && I + 1 < Command.size())
      Kept.push_back("-std=" + Command[++I]);
  }
  return Kept;
}

bool isClangOnlyError(llvm::StringRef Message) {
  // Clang rejects __shared__ variables whose type has a non-trivial default constructor in the
  // host pass; nvcc accepts cuda::barrier and cuda::pipeline_shared_state there.
  return Message == "initialization is not supported for __shared__ variables";
}

std::optional<std::string> clangOnlyReason(llvm::StringRef Message, llvm::StringRef Before) {
  if (isClangOnlyError(Message))
    return "nvcc accepts a __shared__ variable with a non-trivial default constructor";
  // `__shared__ alignas(16) float a[32];` (cuda-samples): nvcc takes alignas after the memory
  // space; Clang wants it first, and recovers by ignoring it, which a parse does not need.
  static const char *const MemorySpaces[] = {"__shared__", "__device__", "__constant__",
                                             "__managed__"};
  llvm::StringRef Tail = Before.rtrim();
  const char *const *Space =
      llvm::find_if(MemorySpaces, [&](const char *Space) { return Tail.ends_with(Space); });
  if (Message == "an attribute list cannot appear here" && Space != std::end(MemorySpaces))
    return std::string("nvcc accepts alignas after a CUDA memory space (") + *Space +
           " alignas(...)); Clang 19 ignores the alignment in its parse";
  // Clang 19 has no dynamic parallelism: a launch from device code is an error there, while nvcc
  // compiles it with -rdc=true. The traced rewrite leaves such launches as written.
  if (Message.starts_with("reference to __global__ function '") &&
      (Message.ends_with("' in __global__ function") ||
       Message.ends_with("' in __device__ function")))
    return "nvcc compiles kernel launches from device code (dynamic parallelism, -rdc=true); "
           "Clang 19 does not";
  return std::nullopt;
}

} // namespace cutrace::compat
