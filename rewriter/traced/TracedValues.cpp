#include "traced/TracedValues.h"

#include "lex/StringLiteral.h"
#include "traced/TracedLaunches.h"
#include "traced/TracedTwins.h"
#include "llvm/ADT/StringExtras.h"

namespace cutrace {
namespace {

/// `ns::` before the name token at Offset, as written (an explicit instantiation's qualifier).
std::string qualifierBefore(llvm::StringRef Buffer, unsigned Offset) {
  unsigned B = Offset;
  while (B > 0 && (llvm::isAlnum(Buffer[B - 1]) || Buffer[B - 1] == '_' || Buffer[B - 1] == ':'))
    --B;
  return Buffer.substr(B, Offset - B).str();
}

class ValuePlanner {
public:
  ValuePlanner(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
               const TracedOptions &Options, TracedPlan &Plan)
      : Buffer(Buffer), Lines(Lines), Model(Model), Options(Options), Plan(Plan) {}

  void plan(const KernelValueUse &U, const TracedTwin &Twin) {
    const KernelDecl &K = Model.Kernels[U.Kernel];
    if (!U.ApiFunction.empty() && !U.InDeviceCode)
      Out.Edits.push_back({U.ApiName, U.ApiFunction == "cudaGetKernel"
                                          ? "cutrace::getKernel"
                                          : "cutrace::funcSetCacheConfig"});
    if (!U.LibraryCall.empty())
      warnAt(Plan, U.Offset,
             "'" + K.Name + "' is passed to '" + U.LibraryCall +
                 "' from a library header: launches it makes run the kernel unrecorded, as in "
                 "the plain build" +
                 howToRecord(K));
    if (Twin.Registered)
      return; // a non-template twin registers itself
    std::string Why = U.WhyNotRoutable;
    if (K.HasParameterPack)
      Why = "its kernel has a parameter pack, whose twin takes its slots first";
    else if (K.Overloaded)
      Why = "its name is overloaded there";
    else if (!U.ExplicitInstantiation && U.Value.End <= U.Value.Begin && Why.empty())
      Why = "it is not one expression of the file";
    if (!Why.empty())
      return unroutable(U, K, Twin, Why);
    std::string Original, TwinName;
    if (U.ExplicitInstantiation) {
      std::string Name = qualifierBefore(Buffer, U.Offset) + K.Name;
      Original = Name + U.TemplateArgs;
      TwinName = twinName(Name) + U.TemplateArgs;
    } else {
      llvm::StringRef Text = Buffer.substr(U.Value.Begin, U.Value.size());
      unsigned NameAt = U.Offset - U.Value.Begin;
      Original = Text.ltrim("& \t\n").str(); // `&k<A>` and `k<A>` alike: `&` is written below
      NameAt -= static_cast<unsigned>(Text.size() - Original.size());
      TwinName =
          Original.substr(0, NameAt) + twinName(K.Name) + Original.substr(NameAt + K.Name.size());
    }
    std::string Registered = "cutrace::Registered<&" + Original + ", &" + TwinName +
                             ", cutrace_map::" + Twin.Symbol + ">::value";
    if (U.ExplicitInstantiation)
      Out.Edits.push_back(
          {{U.DeclEnd, U.DeclEnd}, " static_assert(" + Registered + " != nullptr, \"\");"});
    else if (Buffer.substr(U.Value.Begin, U.Value.size()).ltrim("& \t\n").starts_with("("))
      // `(k<A, B>)` written in parentheses keeps its commas from a macro's argument list
      // (`CUDA_SET_SHARED_MEMORY_LIMIT((k<A, B>), n)`): so does its replacement.
      Out.Edits.push_back({U.Value, "(" + Registered + ")"});
    else
      Out.Edits.push_back({U.Value, Registered});
    if (U.LaunchApiCall)
      Out.RoutedLaunchApiCalls.insert(U.LaunchApiAt);
  }

  /// The runtime's registerUnrouted() calls, at the end of the file.
  void finish() {
    if (Unrouted.empty())
      return;
    std::string Text = Buffer.ends_with("\n") || Buffer.empty() ? "" : "\n";
    Text += "#if !defined(__CUDA_ARCH__)\n" + Unrouted + "#endif\n";
    Plan.Edits.push_back(
        {{static_cast<unsigned>(Buffer.size()), static_cast<unsigned>(Buffer.size())}, Text});
  }

  ValueEdits Out;

private:
  llvm::StringRef Buffer;
  const LineIndex &Lines;
  const SourceModel &Model;
  const TracedOptions &Options;
  TracedPlan &Plan;
  std::string Unrouted;

  static std::string howToRecord(const KernelDecl &K) {
    return "; to record them, launch " + K.Name +
           " with <<<>>> or cudaLaunchKernel* in this program, or launch " + twinName(K.Name) +
           " with slots from cutrace::Recorder (docs/guide.md)";
  }

  void unroutable(const KernelValueUse &U, const KernelDecl &K, const TracedTwin &Twin,
                  const std::string &Why) {
    if (U.LibraryCall.empty())
      warnAt(Plan, U.Offset,
             "'" + K.Name + "' is used as a value here and its instance cannot be registered (" +
                 Why +
                 "): launches through this pointer record only if the program registers that "
                 "instance elsewhere; the others run unrecorded, counted at exit" +
                 howToRecord(K));
    if (U.InDeviceCode)
      return;
    std::string Where = Options.SourceName + ":" + std::to_string(Lines.line(U.Offset));
    Unrouted += "static const bool cutrace_unrouted_" + identifierFrom(Options.SourceName) + "_" +
                std::to_string(U.Offset) +
                " = cutrace::registerUnrouted(cutrace_map::" + Twin.Symbol + ", \"" +
                escapeForCpp("its instance was taken as a value at " + Where +
                             " and never registered (" + Why + ")") +
                "\");\n";
  }
};

} // namespace

ValueEdits planValueUses(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                         const std::map<int, TracedTwin> &Twins, const TracedOptions &Options,
                         TracedPlan &Plan) {
  ValuePlanner Values(Buffer, Lines, Model, Options, Plan);
  for (const KernelValueUse &U : Model.ValueUses)
    if (auto It = Twins.find(U.Kernel); It != Twins.end())
      Values.plan(U, It->second);
  Values.finish();
  return std::move(Values.Out);
}

} // namespace cutrace
