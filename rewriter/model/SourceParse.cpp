#include "model/SourceModel.h"

#include "compat/CrashGuard.h"
#include "model/CounterUses.h"
#include "model/HeaderSelection.h"
#include "model/ModelBuilder.h"
#include "model/PreludeCache.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseSet.h"
#include <set>

namespace cutrace {
namespace {
using namespace clang;

/// Keeps Clang's own diagnostics as data; the verify stage decides which ones matter.
class DiagnosticCollector : public DiagnosticConsumer {
public:
  std::vector<ClangDiagnostic> Diagnostics;
  std::string FirstFatal;

  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error)
      return;
    llvm::SmallString<256> Text;
    Info.FormatDiagnostic(Text);
    ClangDiagnostic D;
    D.Message = Text.str().str();
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation Loc = SM.getFileLoc(Info.getLocation());
      PresumedLoc P = SM.getPresumedLoc(Loc);
      if (P.isValid())
        D.Location = std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) + ":" +
                     std::to_string(P.getColumn());
      D.InMainFile = SM.isWrittenInMainFile(Loc);
      if (D.InMainFile)
        D.Offset = SM.getFileOffset(Loc);
    }
    if (Level == DiagnosticsEngine::Fatal && FirstFatal.empty())
      FirstFatal = (D.Location.empty() ? "" : D.Location + ": ") + D.Message;
    Diagnostics.push_back(std::move(D));
  }
};

class IncludeRecorder : public PPCallbacks {
public:
  IncludeRecorder(const SourceManager &SM, std::vector<Inclusion> &Out) : SM(SM), Out(Out) {}

  void InclusionDirective(SourceLocation Hash, const Token &, StringRef, bool,
                          CharSourceRange FileName, OptionalFileEntryRef File, StringRef, StringRef,
                          const Module *, bool, SrcMgr::CharacteristicKind) override {
    if (!File || Hash.isMacroID() || FileName.getBegin().isMacroID())
      return;
    Inclusion I;
    I.Includer = SM.getFileEntryForID(SM.getFileID(Hash));
    I.Included = &File->getFileEntry();
    unsigned Begin = SM.getFileOffset(FileName.getBegin());
    unsigned End = SM.getFileOffset(FileName.getEnd());
    I.Site.FileName = {Begin, End};
    llvm::StringRef Real = File->getFileEntry().tryGetRealPathName();
    I.Site.Resolved = Real.empty() ? File->getName().str() : Real.str();
    Out.push_back(std::move(I));
  }

private:
  const SourceManager &SM;
  std::vector<Inclusion> &Out;
};

/// Whether any code of the translation unit tests CUTRACE_TRACED (#ifdef, #ifndef, defined(),
/// an expansion, a #define or #undef): only then does a traced parse differ from a plain one.
/// The traced parse's own -DCUTRACE_TRACED is not code (a parse reading the prelude from the
/// cache never sees it defined).
class TracedMacroWatcher : public PPCallbacks {
public:
  TracedMacroWatcher(const SourceManager &SM, bool &Tested) : SM(SM), Tested(Tested) {}
  void Ifdef(SourceLocation, const Token &Name, const MacroDefinition &) override { see(Name); }
  void Ifndef(SourceLocation, const Token &Name, const MacroDefinition &) override { see(Name); }
  void Elifdef(SourceLocation, const Token &Name, const MacroDefinition &) override { see(Name); }
  void Elifndef(SourceLocation, const Token &Name, const MacroDefinition &) override { see(Name); }
  void Defined(const Token &Name, const MacroDefinition &, SourceRange) override { see(Name); }
  void MacroExpands(const Token &Name, const MacroDefinition &, SourceRange,
                    const MacroArgs *) override {
    see(Name);
  }
  void MacroDefined(const Token &Name, const MacroDirective *) override {
    if (!SM.isWrittenInCommandLineFile(Name.getLocation()))
      see(Name);
  }
  void MacroUndefined(const Token &Name, const MacroDefinition &, const MacroDirective *) override {
    if (!SM.isWrittenInCommandLineFile(Name.getLocation()))
      see(Name);
  }

private:
  const SourceManager &SM;
  bool &Tested;
  void see(const Token &Name) {
    if (const IdentifierInfo *Id = Name.getIdentifierInfo())
      Tested = Tested || Id->getName() == "CUTRACE_TRACED";
  }
};

/// Where each file's macros are expanded (nested expansions too): code written in a macro body
/// belongs to the model of the file that defines the macro (FilesToVisit).
class MacroReach : public PPCallbacks {
public:
  MacroReach(const SourceManager &SM, llvm::DenseMap<const FileEntry *, FilesToVisit> &ExpandedIn)
      : SM(SM), ExpandedIn(ExpandedIn) {}
  void MacroExpands(const Token &Name, const MacroDefinition &MD, SourceRange,
                    const MacroArgs *) override {
    const MacroInfo *Info = MD.getMacroInfo();
    if (!Info || Info->isBuiltinMacro())
      return;
    const FileEntry *Defined = SM.getFileEntryForID(SM.getFileID(Info->getDefinitionLoc()));
    const FileEntry *Used =
        SM.getFileEntryForID(SM.getFileID(SM.getExpansionLoc(Name.getLocation())));
    if (Defined && Used && Defined != Used)
      ExpandedIn[Defined].insert(Used);
  }

private:
  const SourceManager &SM;
  llvm::DenseMap<const FileEntry *, FilesToVisit> &ExpandedIn;
};

/// The declarations of `Files` that a model walks (modelReach, outermost first), as a traversal
/// scope for the models of a pass. The models ask Clang's parent map where a statement sits; built
/// over the whole unit, that map holds every statement of every template instance (2.8 s of a
/// CUTLASS GEMM's 20 s device pass), built over this scope only the declarations the models can ask
/// about.
class ModelScope : public RecursiveASTVisitor<ModelScope> {
public:
  ModelScope(const SourceManager &SM, const FilesToVisit &Files) : SM(SM), Files(Files) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    switch (modelReach(*D, SM, Files)) {
    case ModelReach::Through:
      return RecursiveASTVisitor::TraverseDecl(D);
    case ModelReach::Outside:
      return true;
    case ModelReach::Walked:
      Decls.push_back(D); // what is inside it is in the scope with it
      return true;
    }
    return true;
  }
  std::vector<Decl *> Decls;

private:
  const SourceManager &SM;
  const FilesToVisit &Files;
};

/// The function bodies a parse leaves unparsed (FrontendOptions::SkipFunctionBodies): those the
/// toolchain's own headers define (compat::toolchainHeaderDirs) for functions the pass does not
/// compile, host functions in a device pass and device-only ones in a host pass. No model reads
/// them: annotations, kernels and launches live in the user's files. Kernels and __host__
/// __device__ functions keep their bodies in both passes: a payload's side-effect check reads
/// them (make_float2), and skipping libcu++'s, whose diagnose_if attributes Clang 19 parses late,
/// leaks those attributes. The host pass then instantiates none of the host library's function
/// templates: llm.c's kernels parse about a tenth faster (docs/PERFORMANCE.md, section 3). Clang
/// still parses what it must (constexpr functions, deduced return types), and the preprocessor
/// still reads every token, so __COUNTER__ and the macros' reach are as before.
class ToolchainBodies {
public:
  ToolchainBodies(std::vector<std::string> Dirs, compat::CudaPass Pass)
      : Dirs(std::move(Dirs)), Pass(Pass) {}

  bool skip(const Decl &D) {
    const Decl *F = &D;
    if (const auto *T = dyn_cast<FunctionTemplateDecl>(F))
      F = T->getTemplatedDecl();
    bool Device = F->hasAttr<CUDADeviceAttr>(), Host = F->hasAttr<CUDAHostAttr>();
    if (F->hasAttr<CUDAGlobalAttr>() || (Device && (Host || Pass != compat::CudaPass::Host)))
      return false;
    const SourceManager &SM = D.getASTContext().getSourceManager();
    FileID File = SM.getFileID(SM.getExpansionLoc(D.getLocation()));
    auto [It, New] = InToolchain.try_emplace(File, false);
    if (New)
      It->second = inToolchain(SM, File);
    return It->second;
  }

private:
  std::vector<std::string> Dirs;
  compat::CudaPass Pass;
  llvm::DenseMap<FileID, bool> InToolchain;

  bool inToolchain(const SourceManager &SM, FileID File) const {
    if (!SrcMgr::isSystem(SM.getFileCharacteristic(SM.getLocForStartOfFile(File))))
      return false;
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    if (!Entry)
      return false;
    llvm::StringRef Path = Entry->getFileEntry().tryGetRealPathName();
    return llvm::any_of(Dirs, [&](const std::string &Dir) { return Path.starts_with(Dir); });
  }
};

class ModelConsumer : public ASTConsumer {
public:
  ModelConsumer(ParseOutcome &Outcome, bool &Reached, const std::vector<Inclusion> &Inclusions,
                CountersByFile &Counters,
                const llvm::DenseMap<const FileEntry *, FilesToVisit> &ExpandedIn,
                const Preprocessor &PP, bool AutoKernels, ToolchainBodies &Skipped)
      : Outcome(Outcome), Reached(Reached), Inclusions(Inclusions), Counters(Counters),
        ExpandedIn(ExpandedIn), PP(PP), AutoKernels(AutoKernels), Skipped(Skipped) {}
  bool shouldSkipFunctionBody(Decl *D) override { return D && Skipped.skip(*D); }
  void HandleTranslationUnit(ASTContext &Ctx) override {
    Reached = true;
    const SourceManager &SM = Ctx.getSourceManager();
    const FileEntry *Main = SM.getFileEntryForID(SM.getMainFileID());
    CallFacts Calls = analyzeCalls(Ctx);
    FilesToVisit MainFiles = filesOf(Main);
    auto Headers = selectHeaders(Ctx, Inclusions, Calls);
    FilesToVisit Modelled = MainFiles;
    for (auto &[File, H] : Headers)
      if (needsModel(H))
        for (const FileEntry *F : filesOf(File))
          Modelled.insert(F);
    ModelScope Scope(SM, Modelled);
    Scope.TraverseDecl(Ctx.getTranslationUnitDecl());
    Ctx.setTraversalScope(Scope.Decls);
    buildModel(Ctx, PP, Outcome.Model, Main, Calls, AutoKernels, &MainFiles);
    Outcome.Model.HostPass = Outcome.Pass == compat::CudaPass::Host;
    Outcome.Model.Includes = includesOf(Main);
    Outcome.Model.ReachedFromKernelElsewhere = Calls.ReachedFromKernelElsewhere[Main];
    Outcome.Model.Counters = countersOf(Main);
    for (auto &[File, H] : Headers) {
      H.Path = File->tryGetRealPathName().str();
      FilesToVisit Files = filesOf(File);
      if (needsModel(H))
        buildModel(Ctx, PP, H.Model, File, Calls, false, &Files);
      H.Model.Includes = includesOf(File);
      H.Model.ReachedFromKernelElsewhere = Calls.ReachedFromKernelElsewhere[File];
      H.Model.Counters = countersOf(File);
      H.Model.HostPass = Outcome.Model.HostPass;
      Outcome.Headers.push_back(std::move(H));
    }
    std::sort(Outcome.Headers.begin(), Outcome.Headers.end(),
              [](const HeaderModel &A, const HeaderModel &B) { return A.Path < B.Path; });
    Ctx.setTraversalScope({Ctx.getTranslationUnitDecl()});
  }

private:
  ParseOutcome &Outcome;
  bool &Reached;
  const std::vector<Inclusion> &Inclusions;
  CountersByFile &Counters;
  const llvm::DenseMap<const FileEntry *, FilesToVisit> &ExpandedIn;
  const Preprocessor &PP;
  bool AutoKernels; // --auto: the main file's kernels and loops too
  ToolchainBodies &Skipped;

  FilesToVisit filesOf(const FileEntry *File) const {
    auto It = ExpandedIn.find(File);
    FilesToVisit Files = It == ExpandedIn.end() ? FilesToVisit() : It->second;
    Files.insert(File);
    return Files;
  }

  /// A header included several times (no guard) keeps its first inclusion's values; a device
  /// pass's text goes to DeviceText.
  std::vector<CounterUse> countersOf(const FileEntry *File) const {
    std::vector<CounterUse> Uses;
    llvm::DenseSet<unsigned> Seen;
    for (CounterUse &U : Counters[File]) {
      if (!Seen.insert(U.Written.Begin).second)
        continue;
      if (Outcome.Pass != compat::CudaPass::Host)
        std::swap(U.HostText, U.DeviceText);
      Uses.push_back(U);
    }
    return Uses;
  }

  /// A header included several times (no guard) lists its directives once.
  std::vector<IncludeSite> includesOf(const FileEntry *File) const {
    std::vector<IncludeSite> Sites;
    llvm::DenseSet<unsigned> Seen;
    for (const Inclusion &I : Inclusions)
      if (I.Includer == File && Seen.insert(I.Site.FileName.Begin).second)
        Sites.push_back(I.Site);
    return Sites;
  }
};

class ModelAction : public ASTFrontendAction {
public:
  ModelAction(ParseOutcome &Outcome, bool &Reached, const compat::ParseOptions &Options)
      : Outcome(Outcome), Reached(Reached), AutoKernels(Options.AutoKernels),
        Skipped(compat::toolchainHeaderDirs(Options), Outcome.Pass) {}
  bool BeginInvocation(CompilerInstance &CI) override {
    // Clang's "N errors generated" summary is ours to decide on, not to print.
    CI.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
    CI.getFrontendOpts().SkipFunctionBodies = true; // those ToolchainBodies names
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, llvm::StringRef) override {
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<IncludeRecorder>(CI.getSourceManager(), Inclusions));
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<TracedMacroWatcher>(CI.getSourceManager(), Outcome.TestsTracedMacro));
    CI.getPreprocessor().addPPCallbacks(watchCounters(CI.getPreprocessor(), Counters));
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<MacroReach>(CI.getSourceManager(), ExpandedIn));
    return std::make_unique<ModelConsumer>(Outcome, Reached, Inclusions, Counters, ExpandedIn,
                                           CI.getPreprocessor(), AutoKernels, Skipped);
  }

private:
  ParseOutcome &Outcome;
  bool &Reached;
  bool AutoKernels;
  ToolchainBodies Skipped;
  std::vector<Inclusion> Inclusions;
  CountersByFile Counters;
  llvm::DenseMap<const FileEntry *, FilesToVisit> ExpandedIn; // a file's macros -> where used
};

/// Every name a prelude looks up in the include path, found or not.
class LookedUp : public PPCallbacks {
public:
  explicit LookedUp(std::set<std::string> &Names) : Names(Names) {}
  void InclusionDirective(SourceLocation, const Token &, StringRef FileName, bool,
                          CharSourceRange, OptionalFileEntryRef, StringRef, StringRef,
                          const Module *, bool, SrcMgr::CharacteristicKind) override {
    Names.insert(FileName.str());
  }
  void HasInclude(SourceLocation, StringRef FileName, bool, OptionalFileEntryRef,
                  SrcMgr::CharacteristicKind) override {
    Names.insert(FileName.str());
  }

private:
  std::set<std::string> &Names;
};

/// Writes the parse of the prelude file (every -include, nothing else) as a precompiled header,
/// and lists the files it read. Its function bodies are all parsed: Clang 19 reads a header
/// written with bodies skipped (ToolchainBodies) past the end of a declaration's attributes when
/// the parse that loads it recovers from an error (AddressSanitizer, use-after-poison in
/// ASTDeclReader; PreludeCacheTest.AParseRecoveringFromAnErrorReadsThePreludeSafely). Loading
/// is lazy, so a parse reads only the bodies it uses.
class PreludeAction : public GeneratePCHAction {
public:
  PreludeAction(std::string Output, prelude::Reads &Read) : Output(std::move(Output)), Read(Read) {}
  bool BeginInvocation(CompilerInstance &CI) override {
    CI.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
    CI.getFrontendOpts().OutputFile = Output;
    return GeneratePCHAction::BeginInvocation(CI);
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef InFile) override {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<LookedUp>(Names));
    return GeneratePCHAction::CreateASTConsumer(CI, InFile);
  }
  void EndSourceFileAction() override {
    const SourceManager &SM = getCompilerInstance().getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      llvm::StringRef Path = It->first.getName();
      if (!Path.starts_with("/__cutrace__/")) // the tool's own, named by the key
        Read.Files.push_back({Path.str(), static_cast<int64_t>(It->first.getModificationTime()),
                              static_cast<uint64_t>(It->first.getSize())});
    }
    Read.Names.assign(Names.begin(), Names.end());
    GeneratePCHAction::EndSourceFileAction();
  }

private:
  std::string Output;
  prelude::Reads &Read;
  std::set<std::string> Names;
};

/// Takes out of a command's user flags what a prelude is built without, and returns the include
/// folders among them. The user's -include and -imacros files are read after the prelude, in the
/// parse. The user's include folders are left out so that builds with other folders share an
/// entry; the lookup checks instead that none of them holds a name the prelude looked up.
std::vector<std::string> preludeArgs(std::vector<std::string> &Args) {
  static const llvm::StringRef DirFlags[] = {"-isystem", "-iquote", "-idirafter", "-I"};
  std::vector<std::string> Kept, Dirs;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg = Args[I];
    const llvm::StringRef *Dir =
        llvm::find_if(DirFlags, [&](llvm::StringRef F) { return Arg.starts_with(F); });
    if (Arg.starts_with("-include") || Arg.starts_with("-imacros"))
      I += Arg == "-include" || Arg == "-imacros"; // and the file, when apart
    else if (Dir == std::end(DirFlags))
      Kept.push_back(Args[I]);
    else if (Arg != *Dir)
      Dirs.push_back(Arg.drop_front(Dir->size()).str());
    else if (I + 1 < Args.size())
      Dirs.push_back(Args[++I]);
  }
  Args = std::move(Kept);
  return Dirs;
}

/// A prelude a parse can read: its cache entry, and whether this run wrote it.
struct Prelude {
  prelude::Entry Entry;
  bool BuiltNow = false;
};

/// The pass's prelude as a precompiled header, from the cache or built into it; nothing when
/// the cache is off or unwritable, or the prelude does not compile (the parse then reads the
/// headers itself, as it would without a cache).
std::optional<Prelude> preludeOf(const compat::ParseOptions &Options, compat::CudaPass Pass) {
  std::string Dir = prelude::cacheDir();
  if (Dir.empty() || llvm::sys::fs::create_directories(Dir))
    return std::nullopt;
  compat::ParseOptions Own = Options;
  std::vector<std::string> UserDirs = preludeArgs(Own.ExtraArgs);
  std::vector<std::string> Command = compat::parseCommand(Own, Pass, prelude::PreludeFile);
  prelude::Entry Entry = prelude::entryFor(Dir, Command);
  switch (prelude::lookup(Entry, UserDirs)) {
  case prelude::State::Usable:
    return Prelude{Entry, false};
  case prelude::State::Failed:
  case prelude::State::Shadowed:
    return std::nullopt;
  case prelude::State::Missing:
    break;
  }
  auto Files =
      llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), compat::parseFileSystem());
  DiagnosticCollector Collector;
  prelude::Reads Read;
  tooling::ToolInvocation Invocation(
      Command, std::make_unique<PreludeAction>(Entry.Pch, Read), Files.get());
  Invocation.setDiagnosticConsumer(&Collector);
  bool Ran = compat::runGuarded([&] { Invocation.run(); });
  bool Built = Ran && !Read.Files.empty() && Collector.getNumErrors() == 0 &&
               llvm::sys::fs::exists(Entry.Pch);
  if (!prelude::record(Entry, Read, Built) || !Built)
    return std::nullopt;
  // Built without the user's folders: usable only where none of them holds what it looked up.
  if (prelude::lookup(Entry, UserDirs) != prelude::State::Usable)
    return std::nullopt;
  return Prelude{Entry, true};
}

/// Why a parse that never reached the file failed: the driver's first error (an unknown GPU
/// architecture, a bad flag), when it gave one.
std::string firstError(const std::vector<ClangDiagnostic> &Diagnostics) {
  for (const ClangDiagnostic &D : Diagnostics)
    if (D.Level == Severity::Error)
      return "the compiler could not start on this file: " + D.Message;
  return "the compiler could not start on this file";
}

ParseOutcome parseWith(llvm::StringRef File, const compat::ParseOptions &Options,
                       compat::CudaPass Pass, const std::optional<std::string> &Prelude) {
  ParseOutcome Outcome;
  Outcome.Pass = Pass;
  auto Files =
      llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), compat::parseFileSystem());
  DiagnosticCollector Collector;
  bool Reached = false;
  std::vector<std::string> Command = compat::parseCommand(Options, Pass, File);
  if (Prelude)
    Command.insert(Command.end() - 1, {"-include-pch", *Prelude});
  tooling::ToolInvocation Invocation(Command,
                                     std::make_unique<ModelAction>(Outcome, Reached, Options),
                                     Files.get());
  Invocation.setDiagnosticConsumer(&Collector);
  if (!compat::runGuarded([&] { Invocation.run(); })) {
    Outcome.FailureReason = "Clang crashed while parsing this file (a stack overflow on deeply "
                            "nested code, or an internal error)";
    return Outcome;
  }
  Outcome.Diagnostics = std::move(Collector.Diagnostics);
  Outcome.Ran = Reached && Collector.FirstFatal.empty();
  if (!Collector.FirstFatal.empty())
    Outcome.FailureReason = Collector.FirstFatal;
  else if (!Reached)
    Outcome.FailureReason = firstError(Outcome.Diagnostics);
  return Outcome;
}

} // namespace

unsigned ParseOutcome::errorCount() const {
  unsigned N = 0;
  for (const ClangDiagnostic &D : Diagnostics)
    N += D.Level == Severity::Error;
  return N;
}

ParseOutcome parseSource(llvm::StringRef File, const compat::ParseOptions &Options,
                         compat::CudaPass Pass) {
  std::optional<Prelude> P = preludeOf(Options, Pass);
  ParseOutcome Outcome =
      parseWith(File, Options, Pass, P ? std::optional<std::string>(P->Entry.Pch) : std::nullopt);
  // A parse that stopped early is done again without the prelude, so what it reports is what a
  // parse of the headers themselves says (and a header changed under the cache costs nothing).
  if (P && !Outcome.Ran) {
    Outcome = parseWith(File, Options, Pass, std::nullopt);
    // Then the prelude was what stopped it: one read from the cache is rebuilt next time, one
    // this run wrote is not tried again while the files it read stay as they are.
    if (Outcome.Ran)
      prelude::discard(P->Entry, /*KeepAsFailed=*/P->BuiltNow);
  }
  return Outcome;
}

} // namespace cutrace
