// Both parses of a file (host and device) merged into one model (rewriter/model/ModelMerge.cpp).
#ifndef CUTRACE_REWRITER_MODELMERGE_H
#define CUTRACE_REWRITER_MODELMERGE_H

#include "model/SourceModel.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace cutrace {

/// A kernel's identity across passes and files: its qualified name and parameter types (overloads
/// share a name).
std::string kernelKey(const KernelDecl &K);

/// Both passes' models merged: kernels by qualified name, annotations and launches by offset.
SourceModel mergeModels(llvm::ArrayRef<ParseOutcome> Passes);
SourceModel mergeSourceModels(llvm::ArrayRef<const SourceModel *> Models);

} // namespace cutrace

#endif
