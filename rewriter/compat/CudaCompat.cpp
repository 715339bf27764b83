#include "CudaCompat.h"
#include "EmbeddedHeaders.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

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

std::vector<std::string> parseCommand(const ParseOptions &Options, CudaPass Pass,
                                      llvm::StringRef File) {
  std::vector<std::string> Args = {
      "clang++", "-fsyntax-only", "-x", "cuda", "-std=c++17", "--cuda-path=" + Options.CudaPath,
      "--cuda-gpu-arch=" + Options.GpuArch,
      Pass == CudaPass::Host ? "--cuda-host-only" : "--cuda-device-only",
      "-Wno-unknown-cuda-version", "-w", "-resource-dir", clangResourceDir(),
      // The tool's annotation header first, so the parse view is the one seen.
      "-I" + VirtualInclude.str(), "-DCUTRACE_TOOL_PARSE", "-isystem",
      Options.CudaPath + "/include/cccl",
      // Stubs for headers CUDA 13 removed but clang's CUDA wrapper still includes.
      "-isystem", VirtualStubs.str(), "-include",
      VirtualStubs.str() + "/cutrace_cuda13_intrinsics.h", "-ferror-limit=0"};
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
  auto Overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  Overlay->pushOverlay(Memory);
  return Overlay;
}

std::vector<std::string> translateCompileCommand(llvm::ArrayRef<std::string> Command) {
  std::vector<std::string> Kept;
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

} // namespace cutrace::compat
