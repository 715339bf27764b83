#include "pipeline/Write.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace cutrace {
namespace {

namespace fs = llvm::sys::fs;

WriteFailure cannotWrite(llvm::StringRef Path, const std::string &Why) {
  return {Path.str(), "cannot write '" + Path.str() + "': " + Why};
}

/// Existing FIFOs, devices and sockets are written to in place: replacing them would break the
/// reader, or (as root) the system's device node.
bool isSpecialFile(llvm::StringRef Path) {
  fs::file_status S;
  if (fs::status(Path, S))
    return false;
  return fs::exists(S) && S.type() != fs::file_type::regular_file &&
         S.type() != fs::file_type::directory_file;
}

/// A symlink to a regular file stays a symlink: the file it points to is replaced.
std::string renameTarget(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (fs::exists(Path) && !fs::real_path(Path, Real))
    return Real.str().str();
  return Path.str();
}

std::optional<WriteFailure> createParent(llvm::StringRef Path) {
  llvm::StringRef Parent = llvm::sys::path::parent_path(Path);
  if (Parent.empty())
    return std::nullopt;
  if (std::error_code EC = fs::create_directories(Parent))
    return WriteFailure{Path.str(), "cannot create '" + Parent.str() + "': " + EC.message()};
  return std::nullopt;
}

std::optional<WriteFailure> writeStream(llvm::StringRef Path, llvm::raw_fd_ostream &OS,
                                        llvm::StringRef Text) {
  OS << Text;
  OS.flush();
  if (!OS.has_error())
    return std::nullopt;
  std::string Why = OS.error().message();
  OS.clear_error();
  return cannotWrite(Path == "-" ? "<stdout>" : Path, Why);
}

std::optional<WriteFailure> writeInPlace(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, fs::OF_None);
  if (EC)
    return cannotWrite(Path, EC.message());
  return writeStream(Path, OS, Text);
}

struct Staged {
  fs::TempFile Temp;
  std::string Target;
};

std::optional<WriteFailure> stage(const OutputFile &Out, std::vector<Staged> &Staging) {
  if (std::optional<WriteFailure> F = createParent(Out.Path))
    return F;
  std::string Target = renameTarget(Out.Path);
  llvm::Expected<fs::TempFile> Temp =
      fs::TempFile::create(Target + ".tmp-%%%%%%", fs::all_read | fs::all_write);
  if (!Temp)
    return cannotWrite(Out.Path, llvm::toString(Temp.takeError()));
  Staging.push_back({std::move(*Temp), Target});
  llvm::raw_fd_ostream OS(Staging.back().Temp.FD, /*shouldClose=*/false);
  return writeStream(Out.Path, OS, Out.Text);
}

void discard(std::vector<Staged> &Staging) {
  for (Staged &S : Staging)
    llvm::consumeError(S.Temp.discard());
}

} // namespace

std::optional<WriteFailure> writeOutputs(llvm::ArrayRef<OutputFile> Outputs) {
  std::vector<Staged> Staging;
  std::vector<const OutputFile *> Direct; // stdout and special files: written after the commit
  Staging.reserve(Outputs.size());
  for (const OutputFile &Out : Outputs) {
    if (Out.Path == "-" || isSpecialFile(Out.Path)) {
      Direct.push_back(&Out);
      continue;
    }
    if (std::optional<WriteFailure> F = stage(Out, Staging)) {
      discard(Staging);
      return F;
    }
  }
  for (size_t I = 0; I < Staging.size(); ++I)
    if (llvm::Error E = Staging[I].Temp.keep(Staging[I].Target)) {
      std::vector<Staged> Rest(std::make_move_iterator(Staging.begin() + I),
                               std::make_move_iterator(Staging.end()));
      discard(Rest);
      return cannotWrite(Staging[I].Target, llvm::toString(std::move(E)));
    }
  for (const OutputFile *Out : Direct)
    if (std::optional<WriteFailure> F = Out->Path == "-" ? writeStream("-", llvm::outs(), Out->Text)
                                                         : writeInPlace(Out->Path, Out->Text))
      return F;
  return std::nullopt;
}

} // namespace cutrace
