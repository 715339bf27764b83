// What recording adds inside each loop, before anything runs (docs/cli.md, "cutrace-nvcc"): the
// PTX of a traced source holds each kernel K and its twin K_cutrace_traced; the loops of both are
// found from their back edges, keyed by the user's source line, and their instructions counted.
#ifndef CUTRACE_NVCC_LOOP_COST_H
#define CUTRACE_NVCC_LOOP_COST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cutrace {

/// One loop of a PTX function: the instructions from its header label to its back edge (an
/// inner loop's are counted in the outer one too).
struct PtxLoop {
  std::string File; // the source file of the loop's first line (.file of its .loc lines)
  unsigned Line = 0;
  unsigned Instructions = 0;
  bool Wgmma = false; // a wgmma instruction inside
};

struct PtxFunction {
  std::string Name; // mangled, as the .entry or .func names it
  bool Kernel = false;
  std::vector<PtxLoop> Loops;
};

std::vector<PtxFunction> ptxFunctions(llvm::StringRef Ptx);

/// A loop of a kernel beside the same loop of its twin (Plain is 0 for a loop only the twin has).
struct LoopCost {
  std::string Kernel; // the kernel's mangled name
  std::string File;
  unsigned Line = 0;
  unsigned Plain = 0, Traced = 0;
  bool Wgmma = false;
};

/// Every loop of every kernel that has a twin in Ptx, in source order.
std::vector<LoopCost> loopCosts(llvm::StringRef Ptx);

/// The report: one line per loop whose twin adds instructions; a warning per loop with wgmma
/// that gains more than WarnAbove (marker instructions in a k-loop cost even when they record
/// nothing), and per copy with wgmma that only the twin has (a sampled k-loop, which cost as much
/// as recording every iteration on some kernels). Empty when nothing was added.
std::string loopCostReport(llvm::ArrayRef<LoopCost> Costs, llvm::StringRef Arch,
                           unsigned WarnAbove = 8);

/// nvcc's arguments for the PTX of one generated source: those of the compile without its
/// inputs, outputs, dependency options and link inputs, then -ptx -lineinfo SOURCE -o PTX.
std::vector<std::string> ptxArguments(llvm::ArrayRef<std::string> NvccArgs,
                                      llvm::ArrayRef<std::string> Inputs, llvm::StringRef Source,
                                      llvm::StringRef Ptx);

} // namespace cutrace

#endif
