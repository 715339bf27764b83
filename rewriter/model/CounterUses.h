// Where a parse expands `__COUNTER__` and what each expansion gave (CounterUse in
// rewriter/model/SourceModel.h): a preprocessor watcher, per file of the translation unit.
#ifndef CUTRACE_REWRITER_COUNTERUSES_H
#define CUTRACE_REWRITER_COUNTERUSES_H

#include "model/SourceModel.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include <map>
#include <memory>

namespace cutrace {

/// Each file's counter uses, in file order, with the text this pass gives them in HostText (the
/// caller moves it to DeviceText for a device pass).
using CountersByFile = std::map<const clang::FileEntry *, std::vector<CounterUse>>;

/// Watches PP's macro expansions and, through its token watcher, the tokens they produce; fills
/// Out as the parse goes.
std::unique_ptr<clang::PPCallbacks> watchCounters(clang::Preprocessor &PP, CountersByFile &Out);

} // namespace cutrace

#endif
