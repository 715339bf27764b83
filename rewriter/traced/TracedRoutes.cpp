#include "traced/TracedRoutes.h"

namespace cutrace {

namespace {

bool isStatic(const HelperCall &C) { return C.Qualifier.End > C.Qualifier.Begin; }
bool onBase(const HelperCall &C) { return C.BaseQualifier.End > C.BaseQualifier.Begin; }
bool callsOperator(const HelperCall &C) { return C.CallOperator || C.Member == "operator()"; }

/// `Op` of `Op::`, as a template argument (`typename A::B` for a nested name).
std::string qualifierType(llvm::StringRef Buffer, Span Qualifier) {
  llvm::StringRef Q = Buffer.substr(Qualifier.Begin, Qualifier.size()).trim();
  Q.consume_back("::");
  Q = Q.trim();
  bool Nested = Q.contains("::") && !Q.starts_with("typename ");
  return (Nested ? "typename " : "") + Q.str();
}

} // namespace

std::string routeName(const HelperCall &C) {
  if (onBase(C))
    return "cutrace_route_base_" + (callsOperator(C) ? std::string("call") : C.Member);
  if (callsOperator(C))
    return "cutrace_route_call";
  return std::string(isStatic(C) ? "cutrace_route_static_" : "cutrace_route_") + C.Member;
}

std::string routeDefinition(const HelperCall &C, const std::string &TwinName) {
  std::string Name = routeName(C), Guard = "CUTRACE_ROUTE_" + Name.substr(14);
  std::string Args = "static_cast<A &&>(a)...";
  std::string Head = "template <class G, class O, class... A>\n__device__ __forceinline__ ";
  std::string Object = "static_cast<O &&>(o)";
  std::string Twin = Object + "." + TwinName + "(g, " + Args + ")";
  std::string Original =
      Object + (callsOperator(C) ? "(" + Args + ")" : "." + C.Member + "(" + Args + ")");
  std::string Params = "O &&o, A &&...a";
  if (onBase(C)) {
    // `Base::f(x)` on *this: the qualified name keeps the call to Base's own function.
    Head = "template <class Q, class G, class O, class... A>\n__device__ __forceinline__ ";
    Twin = Object + ".Q::" + TwinName + "(g, " + Args + ")";
    Original = Object + ".Q::" + C.Member + "(" + Args + ")";
  } else if (isStatic(C)) {
    Head = "template <class O, class G, class... A>\n__device__ __forceinline__ ";
    Twin = "O::" + TwinName + "(g, " + Args + ")";
    Original = "O::" + C.Member + "(" + Args + ")";
    Params = "A &&...a";
  }
  return "#ifndef " + Guard + "\n#define " + Guard + "\n" + Head + "auto " + Name + "(int, G &g, " +
         Params + ") -> decltype(" + Twin + ") {\n  return " + Twin + ";\n}\n" + Head +
         "decltype(auto) " + Name + "(long, G &, " + Params + ") {\n  return " + Original +
         ";\n}\n#endif\n";
}

std::vector<Edit> routeEdits(llvm::StringRef Buffer, const HelperCall &C,
                             const std::string &TwinName, const std::string &GroupVar) {
  std::string Rest = C.HasArgs ? ", " : "";
  if (!C.Dispatch) {
    Edit Name = C.CallOperator ? Edit{{C.Object.End, C.Object.End}, "." + TwinName}
                               : Edit{C.CalleeName, TwinName};
    return {Name, {{C.LParen + 1, C.LParen + 1}, GroupVar + Rest}};
  }
  std::string Route = routeName(C) + "(0, " + GroupVar + ", ";
  if (isStatic(C))
    return {{{C.Qualifier.Begin, C.LParen + 1},
             routeName(C) + "<" + qualifierType(Buffer, C.Qualifier) + ">(0, " + GroupVar + Rest}};
  if (onBase(C))
    return {{{C.BaseQualifier.Begin, C.LParen + 1},
             routeName(C) + "<" + qualifierType(Buffer, C.BaseQualifier) + ">(0, " + GroupVar +
                 ", *this" + Rest}};
  if (C.Object.End > C.Object.Begin)
    return {{{C.Object.Begin, C.Object.Begin}, Route + (C.Arrow ? "*" : "")},
            {{C.Object.End, C.LParen + 1}, Rest}};
  // `f(x)` inside a member: the object is *this.
  return {{{C.CalleeName.Begin, C.LParen + 1}, Route + "*this" + Rest}};
}

} // namespace cutrace
