#include "traced/TracedTwins.h"

#include "lex/StringLiteral.h"
#include <algorithm>
#include <cstdio>

namespace cutrace {

std::string shortHash(llvm::StringRef Text) {
  uint32_t H = 2166136261u;
  for (unsigned char C : Text)
    H = (H ^ C) * 16777619u;
  char Out[9];
  std::snprintf(Out, sizeof Out, "%08x", H);
  return Out;
}

std::string identifierFrom(llvm::StringRef Name) {
  std::string Out;
  for (char C : Name)
    Out += (std::isalnum(static_cast<unsigned char>(C)) ? C : '_');
  return Out;
}

namespace {

/// Just past the newline that ends the line holding Offset (the buffer's end if none).
unsigned nextLineStart(llvm::StringRef Buffer, unsigned Offset) {
  size_t NL = Buffer.find('\n', Offset);
  return NL == llvm::StringRef::npos ? Buffer.size() : NL + 1;
}

/// Text inserted as whole lines after the line holding After, numbered as the source lines from
/// FromLine on, with the numbering of the lines that follow restored.
Edit linesAfter(llvm::StringRef Buffer, const LineIndex &Lines, const TracedOptions &Options,
                unsigned After, unsigned FromLine, const std::string &Text) {
  unsigned At = nextLineStart(Buffer, After);
  std::string File = lineFile(Options);
  std::string Out = At == Buffer.size() && !Buffer.ends_with("\n") ? "\n" : "";
  Out += Lines.lineDirective(FromLine, File) + "\n" + Text + "\n";
  if (At < Buffer.size())
    Out += Lines.lineDirective(Lines.line(At), File) + "\n";
  return {{At, At}, Out};
}

/// True when nothing but blanks or a line comment follows Offset on its line: a twin can go on
/// the lines after it. A comment continued onto the next line by a backslash does not count.
bool restOfLineIsBlank(llvm::StringRef Buffer, unsigned Offset) {
  llvm::StringRef Line = Buffer.substr(Offset, nextLineStart(Buffer, Offset) - Offset);
  llvm::StringRef Rest = Line.trim();
  return (Rest.empty() || Rest.starts_with("//")) && !Line.rtrim("\r\n").ends_with("\\");
}

/// Where a declaration's copy goes: on the lines after the original, or, when code follows the
/// original on its line (`namespace a { __global__ void k() { ... } }`), right after it, so that
/// the copy stays in the original's scope. Either way #line keeps the source's numbering.
Edit twinAfter(llvm::StringRef Buffer, const LineIndex &Lines, const TracedOptions &Options,
               const KernelDeclSite &D, const std::string &Copy) {
  unsigned End = D.Range.End;
  size_t Semi = Buffer.find_first_not_of(" \t", End);
  if (!D.IsDefinition && Semi != llvm::StringRef::npos && Buffer[Semi] == ';')
    End = static_cast<unsigned>(Semi + 1);
  unsigned FromLine = Lines.line(D.Range.Begin);
  if (restOfLineIsBlank(Buffer, End))
    return linesAfter(Buffer, Lines, Options, End - 1, FromLine, Copy);
  std::string File = lineFile(Options);
  return {{End, End},
          "\n" + Lines.lineDirective(FromLine, File) + "\n" + Copy + "\n" +
              Lines.lineDirective(Lines.line(End), File) + "\n"};
}

std::string overloadSuffix(const KernelDecl &K) {
  return K.Overloaded ? "_" + shortHash(K.ParamTypes) : "";
}

/// `static const bool k_cutrace_traced_registered = cutrace::registerTwin(&k, &twin, map, n);`:
/// an overloaded kernel's addresses name their overload by a cast. After a definition written
/// outside its namespace (`void n::k(...) {}`), the names take the definition's qualifier.
std::string registration(const KernelDecl &K, const KernelDeclSite &Definition,
                         const TracedTwin &Info) {
  const std::string &Scope = Definition.WrittenQualifier;
  std::string Original = "&" + Scope + K.Name, Twin = "&" + Scope + twinName(K.Name);
  if (K.Overloaded) {
    std::string Params = K.ParamTypesQualified;
    Original = "static_cast<void (*)(" + Params + ")>(" + Original + ")";
    Twin = "static_cast<void (*)(" + Params + (Params.empty() ? "" : ", ") + "cutrace::Slots *)>(" +
           Twin + ")";
  }
  return "static const bool " + identifierFrom(Scope) + twinName(K.Name) + overloadSuffix(K) +
         "_registered = cutrace::registerTwin((const void *)" + Original + ", (const void *)" +
         Twin + ", cutrace_map::" + Info.Symbol + ", " + std::to_string(K.NumParams) + ");";
}

} // namespace

std::string mapSymbol(const KernelDecl &K) {
  return identifierFrom(K.QualifiedName) + overloadSuffix(K);
}

std::string mapKernelName(const KernelDecl &K) {
  return K.Overloaded ? kernelKey(K) : K.QualifiedName;
}

bool isRegistered(const KernelDecl &K) { return !K.IsTemplate && !K.HasParameterPack; }

std::vector<Edit> slotsParameterEdits(llvm::StringRef Buffer, const KernelDecl &Kernel) {
  std::vector<Edit> Edits;
  bool First = true;
  for (const KernelDeclSite &D : Kernel.Decls) {
    if (D.InMacro)
      continue;
    Edits.push_back(
        {{D.Name, D.Name + static_cast<unsigned>(Kernel.Name.size())}, twinName(Kernel.Name)});
    if (Kernel.HasParameterPack) {
      // First: a parameter after a pack could not be deduced (launches pass it first too).
      Edits.push_back({{D.ParamBegin + 1, D.ParamBegin + 1},
                       std::string("cutrace::Slots* __cutrace_slots") + (D.HasParams ? ", " : "")});
      continue;
    }
    std::string Param = std::string("cutrace::Slots* __cutrace_slots") +
                        (First && !D.PrecededElsewhere ? " = nullptr" : "");
    First = false;
    if (D.HasParams) {
      Edits.push_back({{D.ParamEnd, D.ParamEnd}, ", " + Param});
      continue;
    }
    // `k()` or `k(void)`: the parameter replaces whatever sits between the parentheses.
    size_t LParen = Buffer.substr(0, D.ParamEnd).rfind('(');
    Edits.push_back({{static_cast<unsigned>(LParen + 1), D.ParamEnd}, Param});
  }
  return Edits;
}

std::string lineFile(const TracedOptions &Options) {
  return "\"" + escapeForCpp(Options.LinePath.empty() ? Options.SourceName : Options.LinePath) +
         "\"";
}

std::vector<Edit> lineKeepingDeletions(llvm::StringRef Buffer, const LineIndex &Lines,
                                       const TracedOptions &Options,
                                       const std::vector<Span> &Deletions) {
  std::vector<Edit> Edits;
  for (const Span &D : Deletions) {
    llvm::StringRef Gone = Buffer.substr(D.Begin, D.size());
    bool AtLineStart = D.Begin == 0 || Buffer[D.Begin - 1] == '\n';
    if (Gone.contains('\n') && AtLineStart && Gone.ends_with("\n") && D.End < Buffer.size())
      Edits.push_back(
          {D, Lines.lineDirective(Lines.line(D.End), lineFile(Options)) + "\n"});
    else
      Edits.push_back({D, ""});
  }
  return Edits;
}

std::string padTo(const LineIndex &Lines, unsigned Offset) {
  return std::string(Lines.column(Offset) - 1, ' ');
}

std::vector<Edit> counterEdits(const LineIndex &Lines, const TracedOptions &Options,
                               const std::vector<CounterUse> &Counters,
                               llvm::ArrayRef<Span> Annotated, std::vector<Span> &Unwritable,
                               std::vector<Span> &InAnnotations) {
  std::vector<Edit> Edits;
  for (const CounterUse &U : Counters) {
    bool InAnnotation = std::any_of(Annotated.begin(), Annotated.end(), [&](Span A) {
      return U.Written.Begin < A.End && A.Begin < U.Written.End;
    });
    if (InAnnotation) { // the plain build never expands it; the twin's marker does
      InAnnotations.push_back(U.Written);
      continue;
    }
    std::string Host = U.HostText.value_or(U.DeviceText.value_or(""));
    std::string Device = U.DeviceText.value_or(Host);
    if (Host.empty() || Device.empty()) {
      Unwritable.push_back(U.Written);
      continue;
    }
    std::string Text = Host;
    bool Lined = Lines.line(U.Written.Begin) != Lines.line(U.Written.End);
    if (Host != Device) {
      Text = "\n#if defined(__CUDA_ARCH__)\n" + Device + "\n#else\n" + Host + "\n#endif";
      Lined = true;
    }
    if (Lined) // the lines after it keep their numbers and columns
      Text += "\n" + Lines.lineDirective(Lines.line(U.Written.End), lineFile(Options)) + "\n" +
              padTo(Lines, U.Written.End);
    Edits.push_back({U.Written, std::move(Text)});
  }
  return Edits;
}

std::string applyWithin(llvm::StringRef Buffer, Span R, const std::vector<Edit> &Edits) {
  std::vector<Edit> Inside;
  for (const Edit &E : Edits)
    if (E.Range.Begin >= R.Begin && E.Range.End <= R.End)
      Inside.push_back({{E.Range.Begin - R.Begin, E.Range.End - R.Begin}, E.Text});
  llvm::Expected<std::string> Text = applyEdits(Buffer.substr(R.Begin, R.size()), Inside);
  if (!Text) {
    llvm::consumeError(Text.takeError());
    return "";
  }
  return *Text;
}

void checkTwinnable(const KernelDecl &F, bool Helper, unsigned At, TracedPlan &Plan) {
  std::string What = (Helper ? "__device__ function '" : "kernel '") + F.Name + "'";
  for (const KernelDeclSite &D : F.Decls)
    if (D.InMacro) {
      Plan.Problems.push_back(
          {D.Name ? D.Name : At,
           "a declaration of " + What +
               " is written by a macro expansion, so the traced build cannot copy it into its "
               "twin '" +
               twinName(F.Name) + "'; write the declaration in the file, not through a macro"});
      return;
    }
  if (F.HostSpellingUnknownAt) {
    Plan.Problems.push_back(
        {F.HostSpellingUnknownAt,
         What + " is __host__ __device__ by a spelling the traced build cannot rewrite (a macro "
                "with parameters, or __attribute__((host))); its twin must be __device__ only: "
                "write __host__ __device__, or a macro without parameters that expands to them"});
    return;
  }
  if (F.IsExplicitSpecialization)
    Plan.Problems.push_back(
        {At, What +
                 " is an explicit specialization of a template: its twin would specialize a "
                 "twin of the primary template, which the traced build does not write; "
                 "annotate the primary template (choose per type with if constexpr) or give "
                 "this code a " +
                 std::string(Helper ? "function" : "kernel") + " of its own name"});
}

void planTwins(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
               const std::map<int, TracedTwin> &Twins, const std::vector<Edit> &TwinEdits,
               const TracedOptions &Options, TracedPlan &Plan) {
  for (const auto &[Index, Info] : Twins) {
    const KernelDecl &K = Model.Kernels[Index];
    for (const KernelDeclSite &D : K.Decls) {
      if (D.InMacro || D.Range.End <= D.Range.Begin)
        continue;
      std::string Copy = applyWithin(Buffer, D.Range, TwinEdits);
      if (!D.IsDefinition)
        Copy += ";";
      else if (Info.Registered)
        Copy += "\n#if !defined(__CUDA_ARCH__)\n" + registration(K, D, Info) + "\n#endif";
      Plan.Edits.push_back(twinAfter(Buffer, Lines, Options, D, Copy));
    }
  }
}

void planHelperTwins(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                     const std::set<int> &Reached,
                     std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper,
                     const std::vector<Edit> &TwinEdits, const TracedOptions &Options,
                     TracedPlan &Plan) {
  for (const auto &[H, Uses] : UsesByHelper) {
    // A template the unit never instantiates is code it does not compile: nothing to say.
    if (Reached.count(H) || Uses.empty() || Model.Helpers[H].NeverInstantiated)
      continue;
    bool DeclaresGroups = std::any_of(Uses.begin(), Uses.end(),
                                      [](const AnnotationUse *U) { return isGroupKind(U->Kind); });
    auto Elsewhere = Model.ReachedFromKernelElsewhere.find(Model.Helpers[H].Body.Begin);
    std::string Why =
        Elsewhere != Model.ReachedFromKernelElsewhere.end()
            ? "' is reached from kernel " + Elsewhere->second +
                  " only through calls the traced build cannot route (a pointer, a macro), so "
                  "its annotations record nothing"
            : "' is not called from any kernel, so its annotations record nothing";
    Plan.Problems.push_back(
        {Uses.front()->MacroOffset,
         "'" + Model.Helpers[H].Name + Why +
             (DeclaresGroups ? " (the groups a __device__ function declares are rows of the "
                               "kernels that call it)"
                             : " (a __device__ function records into the group of the kernel "
                               "that calls it)"),
         Severity::Warning});
  }
  for (int H : Reached)
    for (const KernelDeclSite &D : Model.Helpers[H].Decls) {
      if (D.InMacro || D.Range.End <= D.Range.Begin || !D.ParamBegin)
        continue;
      std::string Copy = applyWithin(Buffer, D.Range, TwinEdits);
      if (!D.IsDefinition)
        Copy += ";";
      Plan.Edits.push_back(twinAfter(Buffer, Lines, Options, D, Copy));
    }
}

} // namespace cutrace
