// Both parses of a file (host and device) merged into one model: kernels by qualified name and
// parameter types, helpers by name and body, annotations, launches and value uses by offset.
#include "model/ModelMerge.h"

#include "model/AutoLoops.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <map>
#include <set>

namespace cutrace {

std::string kernelKey(const KernelDecl &K) { return K.QualifiedName + "(" + K.ParamTypes + ")"; }

SourceModel mergeModels(llvm::ArrayRef<ParseOutcome> Passes) {
  std::vector<const SourceModel *> Models;
  for (const ParseOutcome &Pass : Passes)
    Models.push_back(&Pass.Model);
  return mergeSourceModels(Models);
}

SourceModel mergeSourceModels(llvm::ArrayRef<const SourceModel *> Models) {
  SourceModel Merged;
  std::map<std::string, int> KernelByName, HelperByKey;
  // What Merged already holds, by offset.
  llvm::DenseSet<unsigned> LaunchOffsets, ValueOffsets, IncludeOffsets;
  llvm::DenseMap<unsigned, size_t> UseAt; // macro offset -> index in Merged.Uses
  std::set<std::pair<unsigned, unsigned>> JumpEnds;
  std::set<std::pair<unsigned, int>> CallsSeen; // (')' of the call, helper)
  std::map<unsigned, size_t> CounterAt;          // where written -> index in Merged.Counters
  // The device compilation decides the call graph: a call only the host pass sees (an
  // `#ifndef __CUDA_ARCH__` branch) never runs on the GPU, and one only the device pass sees
  // (a body under `#if defined(__CUDA_ARCH__)`) does. The host pass's calls count only when no
  // device pass ran (--verify-strip's checks of a file whose device pass failed).
  bool DeviceSeen = std::any_of(Models.begin(), Models.end(),
                                [](const SourceModel *M) { return !M->HostPass; });
  for (const SourceModel *PassModel : Models) {
    const SourceModel &Pass = *PassModel;
    std::vector<int> Remap;
    for (const IncludeSite &I : Pass.Includes)
      if (IncludeOffsets.insert(I.FileName.Begin).second)
        Merged.Includes.push_back(I);
    bool DecidesCalls = !(Pass.HostPass && DeviceSeen);
    if (DecidesCalls)
      Merged.ReachedFromKernelElsewhere.insert(Pass.ReachedFromKernelElsewhere.begin(),
                                               Pass.ReachedFromKernelElsewhere.end());
    for (const KernelDecl &K : Pass.Kernels) {
      auto [It, New] = KernelByName.try_emplace(kernelKey(K), Merged.Kernels.size());
      if (New)
        Merged.Kernels.push_back(K);
      else if (K.Instantiated)
        Merged.Kernels[It->second].Instantiated = true;
      if (!New) { // --auto: every pass's loops (a loop in an #if branch of one arch)
        mergeLoops(Merged.Kernels[It->second].Loops, K.Loops);
        Merged.Kernels[It->second].AutoCandidate |= K.AutoCandidate;
      }
      if (!New && Merged.Kernels[It->second].Body.End == 0 && K.Body.End != 0) {
        // A pass that saw the definition knows every declaration up to it.
        Merged.Kernels[It->second].Body = K.Body;
        Merged.Kernels[It->second].Decls = K.Decls;
        Merged.Kernels[It->second].DefinitionVisible = true;
      }
      Remap.push_back(It->second);
    }
    // Overloads share a name: a helper is its name and where its body is.
    std::vector<int> HelperRemap;
    for (const KernelDecl &H : Pass.Helpers) {
      std::string Key = H.QualifiedName + "@" +
                        (H.DefinedIn.empty() ? std::to_string(H.Body.Begin)
                                             : H.DefinedIn + ":" + H.Signature);
      auto [It, New] = HelperByKey.try_emplace(Key, Merged.Helpers.size());
      if (New)
        Merged.Helpers.push_back(H);
      else // never instantiated: by no pass
        Merged.Helpers[It->second].NeverInstantiated &= H.NeverInstantiated;
      HelperRemap.push_back(It->second);
    }
    for (HelperCall C : Pass.HelperCalls) {
      if (!DecidesCalls)
        continue;
      C.Helper = HelperRemap[C.Helper];
      if (CallsSeen.insert({C.RParen, C.Helper}).second)
        Merged.HelperCalls.push_back(C);
    }
    for (AnnotationUse U : Pass.Uses) {
      if (auto [Seen, New] = UseAt.try_emplace(U.MacroOffset, Merged.Uses.size()); !New) {
        AnnotationUse &Kept = Merged.Uses[Seen->second];
        // Passes that see different code after a sample (an #if between them) would need two
        // different copies: the traced build writes one. The copy starts at the annotation, so
        // a macro before the statement that one pass expands to nothing changes nothing.
        Kept.SampledDiffers |= isSampleKind(U.Kind) && U.Sampled.End && Kept.Sampled.End &&
                               U.Sampled.End != Kept.Sampled.End;
        Kept.SampledIssuesWgmma |= U.SampledIssuesWgmma;
        continue;
      }
      if (U.Helper >= 0)
        U.Helper = HelperRemap[U.Helper];
      if (U.Kernel >= 0)
        U.Kernel = Remap[U.Kernel];
      Merged.Uses.push_back(std::move(U));
    }
    for (LaunchSite L : Pass.Launches) {
      if (!LaunchOffsets.insert(L.Offset).second)
        continue;
      if (L.Kernel >= 0)
        L.Kernel = Remap[L.Kernel];
      Merged.Launches.push_back(std::move(L));
    }
    for (const CounterUse &U : Pass.Counters) {
      auto [It, New] = CounterAt.try_emplace(U.Written.Begin, Merged.Counters.size());
      if (New) {
        Merged.Counters.push_back(U);
        continue;
      }
      CounterUse &Kept = Merged.Counters[It->second];
      if (!Kept.HostText)
        Kept.HostText = U.HostText;
      if (!Kept.DeviceText)
        Kept.DeviceText = U.DeviceText;
    }
    for (const Jump &J : Pass.Jumps)
      if (JumpEnds.insert({J.From, J.To}).second)
        Merged.Jumps.push_back(J);
    for (KernelValueUse V : Pass.ValueUses) {
      if (!ValueOffsets.insert(V.Offset).second)
        continue;
      V.Kernel = Remap[V.Kernel];
      Merged.ValueUses.push_back(V);
    }
  }
  std::sort(Merged.Counters.begin(), Merged.Counters.end(),
            [](const CounterUse &A, const CounterUse &B) { return A.Written.Begin < B.Written.Begin; });
  return Merged;
}

} // namespace cutrace
