#include "LoopCost.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <map>
#include <tuple>

namespace cutrace {

namespace {

constexpr llvm::StringLiteral TwinSuffix = "_cutrace_traced";
constexpr llvm::StringLiteral SlotsParameter = "PN7cutrace5SlotsE"; // cutrace::Slots *

struct Instruction {
  unsigned File = 0, Line = 0; // the .loc in effect; 0 when none
  bool Wgmma = false;
};

/// The name an .entry line declares: `.visible .entry _Z1kPf(` -> `_Z1kPf`.
llvm::StringRef entryName(llvm::StringRef Line) {
  size_t At = Line.find(".entry ");
  if (At == llvm::StringRef::npos)
    return "";
  llvm::StringRef Rest = Line.substr(At + 7).ltrim();
  return Rest.take_until([](char C) { return C == '(' || C == ' ' || C == '\t'; });
}

bool userFile(const std::map<unsigned, std::string> &Files, unsigned File) {
  auto Name = Files.find(File);
  return Name != Files.end() && !llvm::StringRef(Name->second).contains("/cutrace/");
}

/// The file most of Body's instructions that are not cutrace's own (runtime/include/cutrace/
/// headers) come from; 0 when none.
unsigned mostFrequentFile(llvm::ArrayRef<Instruction> Body,
                          const std::map<unsigned, std::string> &Files) {
  std::map<unsigned, unsigned> PerFile;
  for (const Instruction &I : Body)
    if (I.Line && userFile(Files, I.File))
      ++PerFile[I.File];
  if (PerFile.empty())
    return 0;
  return std::max_element(PerFile.begin(), PerFile.end(), [](auto &A, auto &B) {
           return A.second < B.second;
         })->first;
}

/// The loop's source line: its first line in the function's own file (Home) when it has code
/// there (a k-loop mostly made of a header's inline functions is still the kernel's loop), else
/// in the file most of its instructions come from.
void placeLoop(PtxLoop &Loop, llvm::ArrayRef<Instruction> Body, unsigned Home,
               const std::map<unsigned, std::string> &Files) {
  bool AtHome = llvm::any_of(Body, [&](const Instruction &I) { return I.Line && I.File == Home; });
  unsigned File = AtHome && Home ? Home : mostFrequentFile(Body, Files);
  if (!File)
    return;
  Loop.File = Files.at(File);
  Loop.Line = ~0u;
  for (const Instruction &I : Body)
    if (I.File == File && I.Line)
      Loop.Line = std::min(Loop.Line, I.Line);
}

/// K's mangled name from its twin's: `_Z16k_cutrace_tracedPfPN7cutrace5SlotsE` -> `_Z1kPf`.
std::string plainName(llvm::StringRef Twin) {
  size_t End = Twin.find(TwinSuffix);
  if (End == llvm::StringRef::npos)
    return "";
  // The identifier starts where the digits before it give its length.
  for (size_t Start = End; Start-- > 1;) {
    size_t Digits = Start;
    while (Digits > 0 && llvm::isDigit(Twin[Digits - 1]))
      --Digits;
    unsigned Length = 0;
    if (Digits == Start || Twin.substr(Digits, Start - Digits).getAsInteger(10, Length) ||
        Length != End + TwinSuffix.size() - Start)
      continue;
    std::string Name = (Twin.take_front(Digits) + llvm::Twine(End - Start) +
                        Twin.slice(Start, End) + Twin.substr(End + TwinSuffix.size()))
                           .str();
    size_t Slots = llvm::StringRef(Name).rfind(SlotsParameter);
    if (Slots != llvm::StringRef::npos)
      Name.erase(Slots, SlotsParameter.size());
    return Name;
  }
  return "";
}

/// `_Z13ws_wgmma_gemmPK6__halfS1_Pfiii` -> `ws_wgmma_gemm`, a nested name
/// `_ZN7cutlass13device_kernelI...` -> `cutlass::device_kernel<...>` (template arguments are
/// not spelled out); other forms stay as they are.
std::string shownName(llvm::StringRef Mangled) {
  llvm::StringRef Rest = Mangled;
  if (!Rest.consume_front("_Z"))
    return Mangled.str();
  const bool Nested = Rest.consume_front("N");
  std::string Name;
  unsigned Length = 0;
  while (!Rest.empty() && llvm::isDigit(Rest.front())) {
    if (Rest.consumeInteger(10, Length) || Length > Rest.size())
      return Mangled.str();
    Name += (Name.empty() ? "" : "::") + Rest.take_front(Length).str();
    Rest = Rest.drop_front(Length);
    if (!Nested)
      break;
  }
  if (Name.empty())
    return Mangled.str();
  return Rest.starts_with("I") ? Name + "<...>" : Name;
}

} // namespace

std::vector<PtxFunction> ptxFunctions(llvm::StringRef Ptx) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Ptx.split(Lines, '\n');
  std::map<unsigned, std::string> Files;
  for (llvm::StringRef Line : Lines) {
    llvm::StringRef T = Line.trim();
    unsigned Id = 0;
    if (T.consume_front(".file") && !T.ltrim().consumeInteger(10, Id)) {
      T = T.ltrim();
      T.consumeInteger(10, Id);
      T = T.ltrim();
      if (T.consume_front("\""))
        Files[Id] = T.take_until([](char C) { return C == '"'; }).str();
    }
  }
  std::vector<PtxFunction> Functions;
  for (size_t L = 0; L < Lines.size(); ++L) {
    llvm::StringRef Name = entryName(Lines[L]);
    if (Name.empty() || Lines[L].trim().starts_with("//"))
      continue;
    PtxFunction F{Name.str(), true, {}};
    std::vector<Instruction> Body;
    llvm::StringMap<size_t> Labels; // label -> index of the instruction after it
    std::vector<std::pair<size_t, size_t>> Loops;
    Instruction At;
    // The body ends where its braces balance: inline asm (CUTLASS's barrier waits) opens and
    // closes scopes of its own, their `}` at the line's start as the asm text wrote it.
    int Depth = 0;
    bool Opened = false;
    for (++L; L < Lines.size(); ++L) {
      llvm::StringRef Code = Lines[L].split("//").first;
      Depth += int(Code.count('{')) - int(Code.count('}'));
      Opened = Opened || Code.contains('{');
      if (Opened && Depth <= 0)
        break;
      llvm::StringRef T = Lines[L].trim();
      if (T.empty() || T.starts_with("//") || T == "{" || T == "}")
        continue;
      if (T.consume_front(".loc")) {
        T = T.ltrim();
        if (!T.consumeInteger(10, At.File)) {
          T = T.ltrim();
          T.consumeInteger(10, At.Line);
        }
        continue;
      }
      if (T.starts_with("$") && T.ends_with(":")) {
        Labels[T.drop_back()] = Body.size();
        continue;
      }
      if (T.starts_with(".") || !T.contains(';'))
        continue;
      Instruction I = At;
      I.Wgmma = T.contains("wgmma.mma_async");
      Body.push_back(I);
      size_t Bra = T.find("bra");
      if (Bra != llvm::StringRef::npos) {
        llvm::StringRef Target = T.substr(Bra).drop_until([](char C) { return C == '$'; });
        Target = Target.take_until([](char C) { return C == ';' || C == ' '; });
        auto Label = Labels.find(Target);
        if (!Target.empty() && Label != Labels.end())
          Loops.push_back({Label->second, Body.size() - 1});
      }
    }
    unsigned Home = mostFrequentFile(Body, Files);
    for (auto [Begin, End] : Loops) {
      PtxLoop Loop;
      llvm::ArrayRef<Instruction> Range(Body.data() + Begin, End - Begin + 1);
      Loop.Instructions = Range.size();
      Loop.Wgmma = llvm::any_of(Range, [](const Instruction &I) { return I.Wgmma; });
      // The loop statement's file is its back edge's (a CuTe kernel's instructions come mostly
      // from headers, a CUTLASS collective's k-loop lives in one); else the function's.
      const Instruction &Back = Body[End];
      placeLoop(Loop, Range, Back.Line && userFile(Files, Back.File) ? Back.File : Home, Files);
      F.Loops.push_back(std::move(Loop));
    }
    Functions.push_back(std::move(F));
  }
  return Functions;
}

std::vector<LoopCost> loopCosts(llvm::StringRef Ptx) {
  std::vector<PtxFunction> Functions = ptxFunctions(Ptx);
  std::vector<LoopCost> Costs;
  for (const PtxFunction &Twin : Functions) {
    std::string Plain = plainName(Twin.Name);
    auto Original = llvm::find_if(Functions, [&](const PtxFunction &F) { return F.Name == Plain; });
    if (Plain.empty() || Original == Functions.end())
      continue;
    std::vector<bool> Used(Original->Loops.size(), false);
    for (const PtxLoop &T : Twin.Loops) {
      LoopCost C{Plain, T.File, T.Line, 0, T.Instructions, T.Wgmma};
      for (size_t I = 0; I < Original->Loops.size(); ++I) {
        const PtxLoop &O = Original->Loops[I];
        if (!Used[I] && O.File == T.File && O.Line == T.Line) {
          Used[I] = true;
          C.Plain = O.Instructions;
          C.Wgmma = C.Wgmma || O.Wgmma;
          break;
        }
      }
      Costs.push_back(std::move(C));
    }
  }
  std::stable_sort(Costs.begin(), Costs.end(), [](const LoopCost &A, const LoopCost &B) {
    return std::tie(A.Kernel, A.File, A.Line) < std::tie(B.Kernel, B.File, B.Line);
  });
  return Costs;
}

std::string loopCostReport(llvm::ArrayRef<LoopCost> Costs, llvm::StringRef Arch,
                           unsigned WarnAbove) {
  std::string Report;
  for (const LoopCost &C : Costs) {
    if (C.Traced <= C.Plain || C.File.empty())
      continue;
    std::string Where = C.File + ":" + std::to_string(C.Line) + ": ";
    std::string Kernel = shownName(C.Kernel);
    unsigned Added = C.Traced - C.Plain;
    if (C.Plain == 0)
      Report += Where + "note: cutrace: the traced '" + Kernel + "' has a copy of this loop the " +
                "plain one has not (a sampled loop): " + std::to_string(C.Traced) +
                " PTX instructions (" + Arch.str() + ")\n";
    else
      Report += Where + "note: cutrace: recording adds " + std::to_string(Added) +
                " PTX instructions to this loop of '" + Kernel + "': " + std::to_string(C.Plain) +
                " -> " + std::to_string(C.Traced) + " (" + Arch.str() + ")" +
                (C.Wgmma ? ", wgmma in it" : "") + "\n";
    if (C.Wgmma && C.Plain && Added > WarnAbove)
      Report += Where + "warning: cutrace: " + std::to_string(Added) +
                " instructions added to a loop with wgmma in '" + Kernel +
                "': marker instructions in a wgmma loop cost time even in iterations that record "
                "nothing; record once per tile outside the loop, or sample the loop "
                "(TRACE_SAMPLE) and time both builds: a sample paid its share on some kernels and "
                "cost as much as recording every iteration on others\n";
    // The measurements behind this are in docs/PERFORMANCE.md, section 9.
    if (C.Wgmma && !C.Plain)
      Report += Where + "warning: cutrace: '" + Kernel +
                "' has two copies of this loop with wgmma (a TRACE_SAMPLE): on CuTe's Hopper "
                "tutorial and CUTLASS's FP8 cooperative GEMM such a sample cost as much as "
                "recording every iteration or more, in CTAs that record nothing too; time the "
                "kernel with recording off (CUTRACE_LAUNCHES=none) and on, and where the sample "
                "does not pay, record once per tile outside the loop instead (on that FP8 "
                "GEMM a record per tile cost +2% to +4% where every k-tile cost +9% to +11%)\n";
  }
  return Report;
}

std::vector<std::string> ptxArguments(llvm::ArrayRef<std::string> NvccArgs,
                                      llvm::ArrayRef<std::string> Inputs, llvm::StringRef Source,
                                      llvm::StringRef Ptx) {
  llvm::StringSet<> Dropped;
  for (const std::string &In : Inputs)
    Dropped.insert(In);
  std::vector<std::string> Args;
  for (size_t I = 0; I < NvccArgs.size(); ++I) {
    llvm::StringRef A = NvccArgs[I];
    if (Dropped.contains(A) || A == "-c" || A == "--compile" || A == "-MD" || A == "-MMD" ||
        A == "-M" || A == "-MM" || A == "-lineinfo" || A.starts_with("-o=") ||
        A.starts_with("--output-file=") || A.starts_with("-MF=") || A.starts_with("-MT=") ||
        A.starts_with("-l") || A.ends_with(".a") || A.ends_with(".o") || A.ends_with(".so"))
      continue;
    if (A == "-o" || A == "--output-file" || A == "-MF" || A == "-MT" ||
        A == "--dependency-output" || A == "--dependency-target-name") {
      ++I; // and its value
      continue;
    }
    Args.push_back(A.str());
  }
  Args.insert(Args.end(), {"-ptx", "-lineinfo", Source.str(), "-o", Ptx.str()});
  return Args;
}

} // namespace cutrace
