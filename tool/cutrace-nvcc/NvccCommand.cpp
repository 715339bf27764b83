#include "NvccCommand.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include <regex>

namespace cutrace {

namespace {

// nvcc's options that take a value (`-o x`, `-o=x`, `--output-file x`), as `nvcc --help` lists
// them for CUDA 13, long spellings mapped to the short one this file tests for.
const llvm::StringMap<llvm::StringRef> &valueOptions() {
  static const llvm::StringMap<llvm::StringRef> Table = [] {
    llvm::StringMap<llvm::StringRef> T;
    const std::pair<const char *, const char *> LongToShort[] = {
        {"--output-file", "-o"},
        {"--pre-include", "-include"},
        {"--library", "-l"},
        {"--define-macro", "-D"},
        {"--undefine-macro", "-U"},
        {"--include-path", "-I"},
        {"--system-include", "-isystem"},
        {"--library-path", "-L"},
        {"--output-directory", "-odir"},
        {"--compiler-bindir", "-ccbin"},
        {"--archiver-binary", "-arbin"},
        {"--cudart", "-cudart"},
        {"--cudadevrt", "-cudadevrt"},
        {"--libdevice-directory", "-ldir"},
        {"--target-directory", "-target-dir"},
        {"--optimization-info", "-opt-info"},
        {"--optimize", "-O"},
        {"--dopt", "-dopt"},
        {"--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit"},
        {"--ftemplate-depth", "-ftemplate-depth"},
        {"--x", "-x"},
        {"--std", "-std"},
        {"--machine", "-m"},
        {"--compiler-options", "-Xcompiler"},
        {"--linker-options", "-Xlinker"},
        {"--archive-options", "-Xarchive"},
        {"--ptxas-options", "-Xptxas"},
        {"--nvlink-options", "-Xnvlink"},
        {"--static-global-template-stub", "-static-global-template-stub"},
        {"--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility"},
        {"--threads", "-t"},
        {"--split-compile", "-split-compile"},
        {"--split-compile-extended", "-split-compile-extended"},
        {"--fdevice-time-trace", "-fdevice-time-trace"},
        {"--keep-dir", "-keep-dir"},
        {"--time", "-time"},
        {"--run-args", "-run-args"},
        {"--input-drive-prefix", "-idp"},
        {"--dependency-drive-prefix", "-ddp"},
        {"--drive-prefix", "-dp"},
        {"--dependency-output", "-MF"},
        {"--dependency-target-name", "-MT"},
        {"--gpu-architecture", "-arch"},
        {"--gpu-code", "-code"},
        {"--generate-code", "-gencode"},
        {"--relocatable-device-code", "-rdc"},
        {"--entries", "-e"},
        {"--maxrregcount", "-maxrregcount"},
        {"--ftz", "-ftz"},
        {"--prec-div", "-prec-div"},
        {"--prec-sqrt", "-prec-sqrt"},
        {"--fmad", "-fmad"},
        {"--default-stream", "-default-stream"},
        {"--diag-error", "-diag-error"},
        {"--diag-suppress", "-diag-suppress"},
        {"--diag-warn", "-diag-warn"},
        {"--host-linker-script", "-hls"},
        {"--brief-diagnostics", "-brief-diag"},
        {"--jump-table-density", "-jtd"},
        {"--device-stack-protector", "-device-stack-protector"},
        {"--compress-mode", "-compress-mode"},
        {"--frandom-seed", "-frandom-seed"},
        {"--sanitize", "-sanitize"},
        {"--options-file", "-optf"},
        {"--Werror", "-Werror"},
        {"--Xcudafe", "-Xcudafe"},
        {"--Xfatbin", "-Xfatbin"},
    };
    for (const auto &[Long, Short] : LongToShort) {
      T[Long] = Short;
      T[Short] = Short;
    }
    return T;
  }();
  return Table;
}

// Flags that stop nvcc before it links; long spellings mapped to the short one.
const llvm::StringMap<llvm::StringRef> &phaseFlags() {
  static const llvm::StringMap<llvm::StringRef> Table = [] {
    llvm::StringMap<llvm::StringRef> T;
    const std::pair<const char *, const char *> LongToShort[] = {
        {"--compile", "-c"},
        {"--device-c", "-dc"},
        {"--device-w", "-dw"},
        {"--device-link", "-dlink"},
        {"--lib", "-lib"},
        {"--cubin", "-cubin"},
        {"--ptx", "-ptx"},
        {"--fatbin", "-fatbin"},
        {"--cuda", "-cuda"},
        {"--optix-ir", "-optix-ir"},
        {"--ltoir", "-ltoir"},
        {"--preprocess", "-E"},
        {"--generate-dependencies", "-M"},
        {"--generate-nonsystem-dependencies", "-MM"},
        {"--fdevice-syntax-only", "-fdevice-syntax-only"},
        {"--generate-dependencies-with-compile", "-MD"},
        {"--generate-nonsystem-dependencies-with-compile", "-MMD"},
        {"--version", "-V"},
        {"--help", "-h"},
        {"--dryrun", "-dryrun"},
        {"--list-gpu-code", "-code-ls"},
        {"--list-gpu-arch", "-arch-ls"},
    };
    for (const auto &[Long, Short] : LongToShort) {
      T[Long] = Short;
      T[Short] = Short;
    }
    return T;
  }();
  return Table;
}

// Short options whose value may be glued on: -Ipath, -DNAME=1, -lfoo, -O3.
constexpr llvm::StringLiteral GluedValueOptions[] = {"-I", "-D", "-U", "-L", "-l", "-O"};

struct Option {
  llvm::StringRef Name; // the short spelling; empty for an input
  std::string Value;
  bool IsInput = false;
};

/// Splits nvcc's comma-separated list values (`-I a,b`, `-DA,B`).
std::vector<std::string> listItems(llvm::StringRef Value) {
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Value.split(Items, ',', -1, /*KeepEmpty=*/false);
  return {Items.begin(), Items.end()};
}

/// The sm_NN an -arch, -code or -gencode value names first (compute_NN counts as sm_NN).
std::string firstArch(llvm::StringRef Value) {
  static const std::regex Arch("(sm|compute)_([0-9]+[af]?)");
  std::string Text = Value.str();
  std::smatch M;
  return std::regex_search(Text, M, Arch) ? "sm_" + M[2].str() : "";
}

class Reader {
public:
  explicit Reader(NvccCommand &C) : C(C) {}

  /// Reads Args; Origin is the options file they came from, empty for the command line.
  void read(llvm::ArrayRef<std::string> Args, llvm::StringRef Origin) {
    for (size_t I = 0; I < Args.size(); ++I) {
      Option O = classify(Args, I);
      if (O.IsInput)
        addInput(Args[I], Origin.empty() ? I : SIZE_MAX, Origin);
      else
        apply(O);
    }
  }

private:
  NvccCommand &C;
  std::string Language; // from -x
  bool NoLink = false;
  int OptionsFileDepth = 0;

  Option classify(llvm::ArrayRef<std::string> Args, size_t &I) {
    llvm::StringRef Arg = Args[I];
    if (!Arg.starts_with("-") || Arg == "-")
      return {"", "", true};
    const auto &Values = valueOptions();
    if (auto It = Values.find(Arg); It != Values.end())
      return {It->second, I + 1 < Args.size() ? Args[++I] : ""};
    auto [Name, Value] = Arg.split('=');
    if (Arg.contains('=')) {
      if (auto It = Values.find(Name); It != Values.end())
        return {It->second, Value.str()};
    }
    // Before the glued forms: -lib is a phase, not -l "ib".
    if (auto It = phaseFlags().find(Arg); It != phaseFlags().end())
      return {It->second, ""};
    for (llvm::StringRef Glued : GluedValueOptions)
      if (Arg.starts_with(Glued) && Arg.size() > Glued.size())
        return {Glued, Arg.drop_front(Glued.size()).str()};
    return {Arg, ""};
  }

  void addInput(llvm::StringRef Path, size_t Index, llvm::StringRef Origin) {
    bool IsCuda = Language.empty() ? llvm::sys::path::extension(Path) == ".cu" : Language == "cu";
    if (IsCuda && !Origin.empty() && !C.Problem)
      C.Problem = "the CUDA source '" + Path.str() + "' is listed in the options file '" +
                  Origin.str() + "'; put it on the command line so it can be rewritten";
    C.Inputs.push_back({Index, Path.str(), IsCuda});
  }

  void apply(const Option &O) {
    llvm::StringRef N = O.Name;
    if (N == "-o")
      C.Output = O.Value;
    else if (N == "-x")
      Language = O.Value == "none" ? "" : O.Value;
    else if (N == "-MF")
      C.DependencyFile = O.Value;
    else if (N == "-MD" || N == "-MMD")
      C.DependenciesWithCompile = true;
    else if (N == "-M" || N == "-MM")
      C.DependenciesOnly = NoLink = true;
    else if (N == "-V" || N == "-h" || N == "-dryrun" || N == "-code-ls" || N == "-arch-ls")
      C.Informational = true;
    else if (phaseFlags().count(N))
      NoLink = true;
    else if (N == "-I" || N == "-isystem" || N == "-include" || N == "-D" || N == "-U")
      for (const std::string &Item : listItems(O.Value)) {
        C.ClangArgs.push_back(N.str());
        C.ClangArgs.push_back(Item);
      }
    else if (N == "-std")
      C.ClangArgs.push_back("-std=" + O.Value);
    else if ((N == "-arch" || N == "-code" || N == "-gencode") && C.GpuArch.empty())
      C.GpuArch = firstArch(O.Value);
    else if (N == "-optf")
      for (const std::string &File : listItems(O.Value))
        readOptionsFile(File);
    C.Links = !NoLink && !C.Informational;
  }

  void readOptionsFile(const std::string &File) {
    auto Buffer = llvm::MemoryBuffer::getFile(File);
    if (!Buffer || OptionsFileDepth > 8) {
      if (!C.Problem)
        C.Problem = "cannot read the options file '" + File + "'";
      return;
    }
    llvm::BumpPtrAllocator Alloc;
    llvm::StringSaver Saver(Alloc);
    llvm::SmallVector<const char *, 32> Tokens;
    llvm::cl::TokenizeGNUCommandLine((*Buffer)->getBuffer(), Saver, Tokens);
    std::vector<std::string> Args(Tokens.begin(), Tokens.end());
    ++OptionsFileDepth;
    read(Args, File);
    --OptionsFileDepth;
  }
};

} // namespace

NvccCommand readNvccCommand(llvm::ArrayRef<std::string> Args) {
  NvccCommand C;
  C.Args.assign(Args.begin(), Args.end());
  C.Links = true; // no phase flag: nvcc compiles and links
  Reader(C).read(Args, "");
  return C;
}

std::string defaultDependencyFile(const NvccCommand &Command, const NvccInput &Input) {
  llvm::SmallString<256> Path(Command.Output.empty() || Command.Output == "-"
                                  ? llvm::sys::path::filename(Input.Path)
                                  : llvm::StringRef(Command.Output));
  llvm::sys::path::replace_extension(Path, ".d");
  return Path.str().str();
}

} // namespace cutrace
