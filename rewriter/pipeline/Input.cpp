#include "pipeline/Input.h"

#include <cutrace/files.h>

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace cutrace {

llvm::Expected<SourceFile> readSource(const std::string &Path) {
  // Bounded for every kind of file: a FIFO or a device (/dev/zero) would be read without end.
  cutrace::Expected<std::vector<uint8_t>> Bytes = read_file(Path, MaxSourceBytes);
  if (!Bytes)
    return llvm::createStringError(std::make_error_code(std::errc::io_error), Bytes.error);
  llvm::StringRef Text(reinterpret_cast<const char *>(Bytes->data()), Bytes->size());
  return SourceFile{
      Path, std::shared_ptr<llvm::MemoryBuffer>(llvm::MemoryBuffer::getMemBufferCopy(Text, Path))};
}

namespace {

/// Relative -I paths in a database are relative to its entry's working directory.
void anchorIncludePaths(std::vector<std::string> &Args, const std::string &Directory) {
  for (std::string &A : Args)
    for (llvm::StringRef Flag : {"-I", "-isystem"})
      if (llvm::StringRef(A).starts_with(Flag) && A.size() > Flag.size() &&
          !llvm::sys::path::is_absolute(A.substr(Flag.size())))
        A = Flag.str() + Directory + "/" + A.substr(Flag.size());
}

std::vector<std::string> databaseArgs(const std::string &Path, const CompileSettings &Settings,
                                      llvm::raw_ostream &Warnings, compat::BuildArchs &Archs) {
  if (Settings.BuildPath.empty() && !Settings.FindDatabase)
    return {};
  std::string Error;
  std::unique_ptr<clang::tooling::CompilationDatabase> Db =
      Settings.BuildPath.empty()
          ? clang::tooling::CompilationDatabase::autoDetectFromSource(Path, Error)
          : clang::tooling::CompilationDatabase::loadFromDirectory(Settings.BuildPath, Error);
  if (!Settings.BuildPath.empty() && !Db)
    Warnings << "trace-rewrite: warning: " << Error << "\n";
  if (!Db)
    return {};
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  for (const clang::tooling::CompileCommand &C : Db->getCompileCommands(Absolute)) {
    std::vector<std::string> Args = compat::translateCompileCommand(C.CommandLine);
    anchorIncludePaths(Args, C.Directory);
    Archs = compat::buildArchsOf(C.CommandLine);
    return Args;
  }
  return {};
}

} // namespace

std::optional<std::string> compileSettingsProblem(const CompileSettings &Settings) {
  llvm::SmallString<256> Header(Settings.CudaPath);
  llvm::sys::path::append(Header, "include", "cuda_runtime.h");
  if (!llvm::sys::fs::exists(Header))
    return "--cuda-path '" + Settings.CudaPath + "' holds no CUDA installation (no " +
           Header.str().str() + ")";
  llvm::SmallVector<llvm::StringRef, 4> Archs;
  llvm::StringRef(Settings.GpuArch).split(Archs, ',');
  for (llvm::StringRef Arch : Archs) {
    llvm::StringRef Number = Arch.starts_with("sm_") ? Arch.drop_front(3) : "";
    if (Number.ends_with("a") || Number.ends_with("f"))
      Number = Number.drop_back();
    if (Number.empty() || !llvm::all_of(Number, llvm::isDigit))
      return "--cuda-gpu-arch '" + Arch.str() +
             "' is not a GPU architecture (sm_80, sm_90, "
             "sm_90a, ...)";
  }
  return std::nullopt;
}

namespace {

/// The build's arches: from the command after `--`, else the database's command, else
/// --cuda-gpu-arch (a comma-separated list). What nvcc 13 cannot compile is left out, with a note.
void setArchs(compat::ParseOptions &Options, const CompileSettings &Settings,
              compat::BuildArchs FromDatabase, llvm::raw_ostream &Warnings) {
  std::vector<std::string> Command = {"cc"};
  Command.insert(Command.end(), Settings.CommandTail.begin(), Settings.CommandTail.end());
  compat::BuildArchs FromTail = compat::buildArchsOf(Command);
  compat::BuildArchs &Found =
      FromTail.Archs.empty() && FromTail.Dropped.empty() ? FromDatabase : FromTail;
  for (const std::string &Arch : Found.Dropped)
    Warnings << "trace-rewrite: note: the compile command names GPU architecture '" << Arch
             << "', which nvcc 13 does not compile for (sm_75 and up); no pass parses for it\n";
  if (!Found.Archs.empty()) {
    Options.GpuArchs = Found.Archs;
  } else {
    llvm::SmallVector<llvm::StringRef, 4> Listed;
    llvm::StringRef(Settings.GpuArch).split(Listed, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef Arch : Listed)
      Options.GpuArchs.push_back(Arch.trim().str());
  }
  if (Options.GpuArchs.empty())
    Options.GpuArchs.push_back("sm_90");
  Options.GpuArch = Options.GpuArchs.front();
}

} // namespace

compat::ParseOptions parseOptionsFor(const std::string &Path, const CompileSettings &Settings,
                                     llvm::raw_ostream &Warnings) {
  compat::ParseOptions Options;
  Options.CudaPath = Settings.CudaPath;
  compat::BuildArchs DatabaseArchs;
  Options.ExtraArgs = databaseArgs(Path, Settings, Warnings, DatabaseArchs);
  setArchs(Options, Settings, std::move(DatabaseArchs), Warnings);
  Options.ExtraArgs.insert(Options.ExtraArgs.end(), Settings.ExtraArgs.begin(),
                           Settings.ExtraArgs.end());
  std::vector<std::string> Command = {"cc"};
  Command.insert(Command.end(), Settings.CommandTail.begin(), Settings.CommandTail.end());
  for (std::string &A : compat::translateCompileCommand(Command))
    Options.ExtraArgs.push_back(std::move(A));
  return Options;
}

} // namespace cutrace
