// Calls sent to twins (docs/design.md, "Calls routed to twins"): a call of a function that reaches
// annotations, written in traced code, calls the function's twin with the caller's group. A call
// whose callee depends on a template parameter goes through a dispatcher that calls the twin
// when the instantiation's callee has one and the original otherwise.
#ifndef CUTRACE_REWRITER_TRACEDROUTES_H
#define CUTRACE_REWRITER_TRACEDROUTES_H

#include "lex/Edit.h"
#include "model/SourceModel.h"
#include <string>
#include <vector>

namespace cutrace {

/// The dispatcher a dispatched call goes through (`cutrace_route_load`).
std::string routeName(const HelperCall &C);

/// The dispatcher's definition: two overloads, the twin's preferred (its `int` first argument)
/// and taken out by SFINAE when the object's type has no twin. Guarded, so that every file of a
/// translation unit may write it.
std::string routeDefinition(const HelperCall &C, const std::string &TwinName);

/// The edits that send C to the twin TwinName with the group GroupVar: directly
/// (`obj.f_cutrace_traced(g, x)`), or through the dispatcher (`cutrace_route_f(0, g, obj, x)`).
std::vector<Edit> routeEdits(llvm::StringRef Buffer, const HelperCall &C,
                             const std::string &TwinName, const std::string &GroupVar);

} // namespace cutrace

#endif
