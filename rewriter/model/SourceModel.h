// What one Clang parse (host or device pass) tells about the annotated file, as plain data keyed
// by byte offsets in the main file, so later stages never touch the AST.
#ifndef CUTRACE_REWRITER_SOURCEMODEL_H
#define CUTRACE_REWRITER_SOURCEMODEL_H

#include "compat/CudaCompat.h"
#include "lex/Annotation.h"
#include "lex/Problem.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

enum class FunctionSide { Global, Device, Host, Lambda, None };

/// An annotation as seen in the AST.
struct AnnotationUse {
  unsigned MacroOffset = 0;
  AnnotationKind Kind = AnnotationKind::Record;
  FunctionSide Side = FunctionSide::None;
  std::string FunctionName;
  int Kernel = -1;   // index into SourceModel::Kernels when Side == Global
  Span Block;        // the enclosing compound statement, braces included
  Span FunctionBody; // the enclosing function's body, braces included
  bool BlockIsSwitchBody = false;
  std::vector<unsigned> LaterCaseLabels; // case labels after it in the same switch body
  std::vector<Problem> Problems;         // semantic rule violations (side effects)
  int Helper = -1;                       // index into SourceModel::Helpers when Side == Device
  bool InLambda = false;                 // written in a lambda inside the function named above
  bool LambdaByRef = false;              // ... whose default capture is by reference
  bool HostDevice = false;               // Side == Device: the function is also __host__
  bool InMember = false;                 // Side == Device: the function is a class member
  /// Side == Device: a member no call can send to a twin (a constructor, a destructor, a
  /// conversion, an operator other than `operator()`), as the error names it; empty otherwise.
  std::string Unroutable;
  std::optional<int64_t> LeadValue; // TRACE_GROUP: the lead, when a constant expression
  unsigned SliceThreads = 0;        // TRACE_GROUPS: size and first, evaluated
  unsigned FirstThread = 0;
  /// TRACE_SAMPLE: the statement it samples, through its ';' (rewriter/model/SampledStatement.h).
  Span Sampled;
  bool SampledDiffers = false; // the passes saw different code after it (merged models only)
  /// TRACE_SAMPLE: what it samples issues wgmma, itself or through its callees, in some
  /// instance or pass (rewriter/model/WgmmaReach.h).
  bool SampledIssuesWgmma = false;
};

/// One declaration of a kernel written in the main file.
struct KernelDeclSite {
  Span Range;            // the whole declaration (template header included), without its ';'
  unsigned Name = 0;     // the kernel's name token
  unsigned ParamEnd = 0; // ')' closing the parameter list
  bool HasParams = false;
  bool IsDefinition = false;
  bool InMacro = false;           // written by a macro expansion: cannot be copied
  /// A declaration in another file comes first in the translation unit and gets the twin's
  /// declaration there (with the slots parameter's default, which C++ wants once).
  bool PrecededElsewhere = false;
  unsigned TemplateParamsEnd = 0; // a template's '>' closing its parameter list; 0 if none
  unsigned ParamBegin = 0;        // '(' opening the parameter list
  unsigned NameEnd = 0;           // just past the name (`operator()` is three tokens)
  /// `n::` of `__global__ void n::k(int *x) { ... }`: the qualifier a definition written outside
  /// its namespace spells its name with (what code after it must spell the name with too).
  std::string WrittenQualifier;
  /// Just past the last template header of the enclosing classes, written before an out-of-class
  /// member definition (`template <class T> void C<T>::f()`); 0 if none.
  unsigned OuterTemplateParamsEnd = 0;
  /// A __host__ __device__ function: the token that makes it __host__ (`__host__`, or a macro
  /// such as CUTLASS_HOST_DEVICE), and what the device-only twin writes instead.
  Span HostSpelling;
  std::string DeviceOnlySpelling;
};

/// A jump written in a function body of the main file: a `goto` to its label, or a `switch` to
/// one of its `case`/`default` labels. The traced build checks that none skips a scope object.
struct Jump {
  unsigned From = 0; // the `goto` or the `switch`
  unsigned To = 0;   // the label
  bool IsCase = false;
};

/// An outermost loop of a kernel body (`--auto`, rewriter/model/AutoLoops.h): its keyword, and its
/// body statement (braces included, or the statement through its ';').
struct LoopSite {
  unsigned Keyword = 0; // `for`, `while` or `do`
  std::string Form;     // "for", "while", "do", "range-for"
  Span Body;
  bool BodyIsCompound = false;
};

struct KernelDecl {
  std::string Name; // as spelled
  std::string QualifiedName;
  std::vector<KernelDeclSite> Decls; // in the main file, first first
  Span Body;                         // braces included (definition)
  unsigned NumParams = 0;
  /// Parameter types as written, comma-separated: with QualifiedName, the kernel's identity
  /// (overloads share a name).
  std::string ParamTypes;
  /// The same types spelled to be valid C++ at the kernel's declaration (fully qualified), for
  /// the function pointer casts that pick one overload.
  std::string ParamTypesQualified;
  bool Overloaded = false;               // another function of its scope has its name
  /// What tells overloads apart in every file of the translation unit, whatever their lines: the
  /// template parameters, the parameter types, and the file name, line and column of the body's
  /// '{' (rewriter/TracedCallGraph.h, helperKeys).
  std::string Signature;
  bool IsExplicitSpecialization = false; // `template <> __global__ void k<float>(...)`
  bool IsTemplate = false;
  bool HasParameterPack = false;
  bool DefinitionVisible = false; // defined somewhere in the translation unit
  bool Instantiated = false;      // a template with at least one instantiation in this parse
  /// A template, or a member of a class template (or of one of its partial specializations),
  /// that this parse never instantiates: code it does not compile (a collective of CUTLASS the
  /// translation unit includes and does not use), about which a traced build says nothing.
  bool NeverInstantiated = false;
  bool IsMember = false;          // a member function (its twin is a member too)
  bool HostDevice = false;        // __host__ __device__: its twin is __device__ only
  /// HostDevice, and a declaration's host spelling could not be made device-only (a macro with
  /// parameters, `__attribute__((host))`): where, for the error.
  unsigned HostSpellingUnknownAt = 0;
  /// A helper defined in another file of the translation unit (a callee that reaches annotations
  /// there): that file's absolute path and the line of the body's '{'; Decls and Body are empty.
  std::string DefinedIn;
  unsigned DefinedLine = 0;
  /// A kernel defined in the file, with its outermost loops: collected for `--auto` only.
  bool AutoCandidate = false;
  std::vector<LoopSite> Loops;
};

/// A `<<<>>>` launch, or a call of the CUDA launch API, written in the main file.
struct LaunchSite {
  int Kernel = -1;         // -1: the callee is not a kernel name (a function pointer, a parameter)
  unsigned Offset = 0;     // the callee's first character
  unsigned ArgsEnd = 0;    // ')' closing the argument list
  Span Callee;             // the callee expression as written (`ns::k<T>`, `&k`, `fn`)
  unsigned CalleeName = 0; // the kernel's name token inside Callee (when Kernel >= 0)
  unsigned ConfigEnd = 0;  // just past `>>>`
  bool HasWrittenArgs = false;
  bool OmitsDefaultedArgs = false;
  std::vector<std::string> DefaultArgs; // spelled defaults of the arguments left out
  bool InMacro = false;
  bool DeducedTemplate = false;           // a template kernel named without template arguments
  bool OverloadedName = false;            // the callee's name denotes more than one function
  bool ExplicitSpecialization = false;    // the callee is `template <> ... k<float>(...)`
  bool ViaLaunchApi = false;              // cudaLaunchKernel / cudaLaunchKernelEx / cooperative
  Span ApiName;                           // the API function's name token, when ViaLaunchApi
  std::string ApiFunction;                // e.g. "cudaLaunchKernel"
  std::string Grid, Block, Shmem, Stream; // spelled launch configuration
  bool ConfigHasSideEffects = false;
  /// A launch written in the body of a macro defined in this file: where the body spells it
  /// (one edit serves every expansion).
  struct {
    Span Callee; // the callee as the body writes it (a macro parameter, a kernel name)
    unsigned ConfigEnd = 0;
    std::string Grid, Block, Shmem, Stream;
  } Body;
};

/// A call, written in device code of the main file, of a __device__ function or member defined
/// there, or defined in another file and reaching annotations: `h(x)`, `ns::h<4>(x)`, `obj.f(x)`, `p->f(x)`, `f(x)` in a member, `C::f(x)`, `op(x)`.
struct HelperCall {
  int Helper = -1;     // index into SourceModel::Helpers
  Span CalleeName;     // the function's name as written (`h` of `ns::h<4>(x)`, `operator()`);
                       // for `op(x)`, the object `op`
  unsigned LParen = 0; // '(' opening the argument list
  unsigned RParen = 0; // ')' closing the argument list: identifies the call in every instantiation
  bool HasArgs = false;
  bool InMacro = false;
  bool CallOperator = false; // `op(x)`: the object's operator()
  Span Object;               // `obj` of `obj.f(x)`, `p` of `p->f(x)`, `op` of `op(x)`; empty for
                             // `f(x)` and `C::f(x)`
  Span Qualifier;            // `Op::` of `Op::f(x)`; empty if none
  Span BaseQualifier;        // `Base::` of `Base::f(x)` naming a non-static member inside a
                             // member (a base class's function called on *this)
  bool Arrow = false;        // `p->f(x)`
  bool ImplicitThis = false; // `f(x)` naming a non-static member inside a member
  bool ExplicitTemplateArgs = false;
  bool InLambdaByCopy = false; // in a lambda whose default capture is not `[&]`: the group is
                               // out of its reach
  /// In a template, the callee depends on a template parameter (`mainloop.load(x)`, `op(x)` with
  /// a dependent type): instantiations may call functions that have no twin, so the traced build
  /// routes the call through a dispatcher (docs/design.md, "Calls routed to twins").
  bool Dispatch = false;
  std::string Member; // the member's name as a dispatcher spells it (`load`, `operator()`)
};

/// A kernel named other than as a launch's callee (a pointer taken, a template argument), or an
/// explicit instantiation of a kernel template.
struct KernelValueUse {
  int Kernel = -1;
  unsigned Offset = 0;        // the kernel's name token
  bool AttributeCall = false; // an argument of cudaFunc* / cudaOccupancy*: no launch follows
  bool LaunchApiCall = false; // the kernel argument of cudaLaunchKernel* (a launch site)...
  unsigned LaunchApiAt = 0;   // ... whose first character is here
  std::string LibraryCall;    // the function of a system header it is passed to, if any
  /// The kernel's name as written, `ns::k<A>` (without the operators around it), when it is one
  /// span of the file and names one instance by its written template arguments (the traced build
  /// routes it); else empty.
  Span Value;
  bool InMacroArgument = false; // Value is written as a macro's argument
  std::string WhyNotRoutable; // when Value is empty: why, said in the warning and at exit
  bool InDeviceCode = false;  // dynamic parallelism: the host runtime is not there
  /// cudaGetKernel or cudaFuncSetCacheConfig called with the kernel: the function's name token,
  /// which the traced build renames into the runtime's wrapper.
  std::string ApiFunction;
  Span ApiName;
  /// An explicit instantiation definition (`template __global__ void k<float>(float *);`): the
  /// template arguments spelled and where the declaration ends (just past its ';').
  bool ExplicitInstantiation = false;
  std::string TemplateArgs;
  unsigned DeclEnd = 0;
};

struct ClangDiagnostic {
  Severity Level = Severity::Error;
  std::string Location; // file:line:col, empty when none
  std::string Message;
  bool InMainFile = false;
  unsigned Offset = 0; // when InMainFile (file location)
};

/// A `__COUNTER__` the file expands: written there, or reached through a macro invoked there. A
/// twin's copy of the code would expand it again and move the count for every line after it, so
/// the copy writes what the original got instead (docs/design.md, "Traced contract").
struct CounterUse {
  Span Written; // the `__COUNTER__` token, or the outermost macro invocation reaching it
  /// What the copy writes in Written's place, per pass: the value, or the invocation's expansion
  /// spelled token by token with the values in it; empty when it cannot be spelled (a `_Pragma`
  /// in the expansion); none when that pass did not expand it (an #if branch).
  std::optional<std::string> HostText, DeviceText;
};

/// An #include written in the file, and the file it resolved to.
struct IncludeSite {
  Span FileName;        // `"x.h"` or `<x.h>`, delimiters included
  std::string Resolved; // absolute path of the file found
};

struct SourceModel {
  std::vector<AnnotationUse> Uses;
  std::vector<KernelDecl> Kernels;
  /// __device__ functions defined in the main file that hold annotations or are called from
  /// device code there (the traced build gives the ones reaching an annotation a twin), and the
  /// functions of other files called there that reach annotations (KernelDecl::DefinedIn).
  std::vector<KernelDecl> Helpers;
  std::vector<HelperCall> HelperCalls;
  std::vector<LaunchSite> Launches;
  std::vector<KernelValueUse> ValueUses;
  std::vector<IncludeSite> Includes;
  std::vector<Jump> Jumps;
  std::vector<unsigned> FunctionsWithErrors; // offsets of function bodies' '{' holding errors
  std::vector<Span> FunctionBodies;          // every function body written in the file, braces
                                             // included (template instantiations repeat theirs)
  /// Functions defined in the file that a kernel of another file of the translation unit
  /// reaches through calls: the '{' of the body -> that kernel, as warnings name it
  /// (`'kit::device_kernel' (device_kernel.h)`) when the traced build cannot route any of those
  /// calls (a pointer, a macro) and the function records nothing.
  std::map<unsigned, std::string> ReachedFromKernelElsewhere;
  std::vector<CounterUse> Counters; // in file order
  /// Seen by the host pass: its calls and reach describe code the GPU never runs where the two
  /// compilations differ, so the merge takes the call graph from the device passes
  /// (docs/design.md, "The device compilation decides the call graph").
  bool HostPass = false;
};

/// A header of the translation unit the traced build needs its own copy of (the rules are in
/// rewriter/model/HeaderSelection.h): it holds one of the things below, or includes a header that does.
struct HeaderModel {
  std::string Path; // absolute
  bool Annotated = false;
  bool Launches = false;      // writes `<<<` or calls the CUDA launch API (not a system header)
  bool TracedKernels = false; // defines a kernel that reaches annotated code
  bool TracedUses = false;    // launches, or takes as a value, a kernel that reaches annotated code
  bool TracedCallees = false; // defines a function on such a kernel's way to annotated code
  bool DeclaresTraced = false; // declares a kernel or function that reaches annotated code
  bool System = false;        // a system header (-isystem, the pragma, or included from one)
  SourceModel Model;          // offsets in that header
};

struct ParseOutcome {
  compat::CudaPass Pass = compat::CudaPass::Host;
  bool Ran = false;          // the front end ran to the end of the file
  std::string FailureReason; // why it did not
  std::vector<ClangDiagnostic> Diagnostics;
  SourceModel Model;
  std::vector<HeaderModel> Headers;
  bool TestsTracedMacro = false; // the file or a header it includes tests CUTRACE_TRACED

  unsigned errorCount() const;
};

/// Parses File with Clang in one CUDA pass and extracts the model.
ParseOutcome parseSource(llvm::StringRef File, const compat::ParseOptions &Options,
                         compat::CudaPass Pass);

} // namespace cutrace

#endif
