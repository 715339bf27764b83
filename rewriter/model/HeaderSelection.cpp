#include "model/HeaderSelection.h"

#include "lex/AnnotationScanner.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

namespace cutrace {
namespace {
using namespace clang;

class Selection {
public:
  Selection(ASTContext &Ctx, const std::vector<Inclusion> &Inclusions, const CallFacts &Calls)
      : SM(Ctx.getSourceManager()), Inclusions(Inclusions), Calls(Calls) {
    // Each file's first FileID, in one pass: SourceManager::translateFile scans every entry of
    // the unit (macro expansions included) on each call, and a CUDA unit includes hundreds of
    // headers: asked per header, it took a fifth of a whole rewrite.
    for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
      const SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
      if (!E.isFile())
        continue;
      if (OptionalFileEntryRef F = E.getFile().getContentCache().OrigEntry)
        FileIds.try_emplace(&F->getFileEntry(),
                            SM.getFileID(SourceLocation::getFromRawEncoding(E.getOffset())));
    }
  }

  std::vector<std::pair<const FileEntry *, HeaderModel>> select() {
    llvm::DenseMap<const FileEntry *, HeaderModel> Holds;
    for (const Inclusion &I : Inclusions)
      if (!Holds.count(I.Included) && isCopyable(I.Included))
        Holds[I.Included] = contentOf(I.Included);
    markTracedKernels(Holds);
    llvm::DenseSet<const FileEntry *> Needed;
    for (auto &[File, H] : Holds)
      if (needsModel(H))
        Needed.insert(File);
    // A copy is reached only through copies of its includers: each of them is copied as well,
    // whatever its kind (a `#pragma once` original must never be included beside its copy).
    const FileEntry *Main = SM.getFileEntryForID(SM.getMainFileID());
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (const Inclusion &I : Inclusions)
        if (Needed.contains(I.Included) && I.Includer != Main && Holds.count(I.Includer))
          Grew |= Needed.insert(I.Includer).second;
    }
    std::vector<std::pair<const FileEntry *, HeaderModel>> Out;
    for (const FileEntry *F : Needed)
      Out.push_back({F, Holds.lookup(F)});
    return Out;
  }

private:
  const SourceManager &SM;
  const std::vector<Inclusion> &Inclusions;
  const CallFacts &Calls;
  llvm::DenseMap<const FileEntry *, FileID> FileIds;

  FileID fileId(const FileEntry *F) const {
    auto It = FileIds.find(F);
    return It == FileIds.end() ? FileID() : It->second;
  }

  /// A file on disk that is not the tool's own header.
  bool isCopyable(const FileEntry *F) const {
    if (!F)
      return false;
    llvm::StringRef Name = F->tryGetRealPathName();
    return !Name.empty() && !Name.starts_with("/__cutrace__/") && fileId(F).isValid();
  }

  bool isSystem(const FileEntry *F) const {
    // At the end of the file: `#pragma GCC system_header` makes the rest of a header a system one.
    FileID ID = fileId(F);
    return SrcMgr::isSystem(SM.getFileCharacteristic(SM.getLocForEndOfFile(ID)));
  }

  /// Cheap text tests first: most headers hold nothing to trace.
  HeaderModel contentOf(const FileEntry *F) const {
    HeaderModel H;
    H.System = isSystem(F);
    std::optional<llvm::StringRef> Text = SM.getBufferDataOrNone(fileId(F));
    if (!Text)
      return H;
    H.Annotated = Text->contains("TRACE_") && !scanAnnotations(*Text).Annotations.empty();
    // A project header's launches are routed even when their kernel is not known here (a
    // function pointer, another file's kernel); a system header's only when it names one.
    H.Launches = !H.System && (Text->contains("<<<") || Text->contains("cudaLaunchKernel") ||
                               Text->contains("cudaLaunchCooperativeKernel"));
    return H;
  }

  void markTracedKernels(llvm::DenseMap<const FileEntry *, HeaderModel> &Holds) const {
    for (auto &[Kernel, File] : Calls.KernelFiles)
      if (Calls.Reaching.contains(Kernel) && Holds.count(File))
        Holds[File].TracedKernels = true;
    for (auto &[Kernel, File] : Calls.KernelNames)
      if (Calls.Reaching.contains(Kernel) && Holds.count(File))
        Holds[File].TracedUses = true;
    for (const FileEntry *File : Calls.OnTracedPath)
      if (Holds.count(File))
        Holds[File].TracedCallees = true;
    for (const FileEntry *File : Calls.DeclaresTraced)
      if (Holds.count(File))
        Holds[File].DeclaresTraced = true;
  }
};

} // namespace

std::vector<std::pair<const FileEntry *, HeaderModel>>
selectHeaders(ASTContext &Ctx, const std::vector<Inclusion> &Inclusions, const CallFacts &Calls) {
  return Selection(Ctx, Inclusions, Calls).select();
}

bool needsModel(const HeaderModel &H) {
  return H.Annotated || H.Launches || H.TracedKernels || H.TracedUses || H.TracedCallees ||
         H.DeclaresTraced;
}

std::string copyReason(const HeaderModel &H) {
  std::vector<std::string> Why;
  if (H.Annotated)
    Why.push_back("holds annotations");
  if (H.TracedKernels)
    Why.push_back("defines a kernel that reaches annotated code");
  if (H.TracedUses)
    Why.push_back("launches or names a kernel that reaches annotated code");
  if (H.TracedCallees)
    Why.push_back("defines a function a kernel calls on its way to annotated code");
  if (H.DeclaresTraced)
    Why.push_back("declares a function that reaches annotated code");
  if (H.Launches)
    Why.push_back("launches kernels");
  std::string Out;
  for (const std::string &W : Why)
    Out += (Out.empty() ? "" : ", ") + W;
  return Out.empty() ? "includes a copied header" : Out;
}

} // namespace cutrace
