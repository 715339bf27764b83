// cutrace annotations.
//
// Without trace-rewrite these macros compile to nothing: every argument is named in the never-taken
// arm of a constant condition (so variables used only by annotations do not draw "unused"
// warnings) and no device code is generated. `trace-rewrite` deletes them (default mode) or expands
// them into recording code (`--traced`). The annotation language is described in docs/annotations.md.
#ifndef CUTRACE_TRACE_H
#define CUTRACE_TRACE_H

#if defined(__CUDACC__) || defined(__CUDA__)
#define CUTRACE_HD_ __host__ __device__
#else
#define CUTRACE_HD_
#endif

#ifdef CUTRACE_TOOL_PARSE
// The view trace-rewrite parses: one typed call per annotation, so the AST holds each annotation
// with its arguments converted exactly as the recording code will convert them.
namespace cutrace_tool {
struct token {};
CUTRACE_HD_ void group(const char *name, int lead);
CUTRACE_HD_ void groups(const char *name, int size, int first = 0);
CUTRACE_HD_ void range(const char *name, const char *lane = "main", int payload = 0);
CUTRACE_HD_ token range_start(const char *name, const char *lane = "main", int payload = 0);
CUTRACE_HD_ void range_end(token tok);
CUTRACE_HD_ void record(const char *name, int payload = 0, const char *lane = "main");
CUTRACE_HD_ void dag(const char *src, const char *dst);
CUTRACE_HD_ void range_if(bool cond, const char *name, const char *lane = "main", int payload = 0);
CUTRACE_HD_ void record_if(bool cond, const char *name, int payload = 0,
                           const char *lane = "main");
CUTRACE_HD_ void sample(bool cond);
CUTRACE_HD_ void sample_rest(bool cond);
} // namespace cutrace_tool
#define TRACE_GROUP(name, lead) ::cutrace_tool::group(name, lead)
#define TRACE_RANGE(...) ::cutrace_tool::range(__VA_ARGS__)
#define TRACE_RANGE_START(...) ::cutrace_tool::range_start(__VA_ARGS__)
#define TRACE_RANGE_END(tok) ::cutrace_tool::range_end(tok)
#define TRACE_RECORD(...) ::cutrace_tool::record(__VA_ARGS__)
#define TRACE_DAG(src, dst) ::cutrace_tool::dag(src, dst)
#define TRACE_GROUPS(...) ::cutrace_tool::groups(__VA_ARGS__)
#define TRACE_RANGE_IF(...) ::cutrace_tool::range_if(__VA_ARGS__)
#define TRACE_RECORD_IF(...) ::cutrace_tool::record_if(__VA_ARGS__)
#define TRACE_SAMPLE(cond) ::cutrace_tool::sample(cond)
#define TRACE_SAMPLE_REST(cond) ::cutrace_tool::sample_rest(cond)
#else
namespace cutrace_noop {
// An empty destructor makes the token a class with a non-trivial destructor, so a token that is
// only passed to TRACE_RANGE_END does not draw "set but never used" (nvcc #550, -Wunused).
struct token {
  CUTRACE_HD_ ~token() {}
};
// Named in the never-taken arm of a constant condition: the arguments count as used, no code
// is generated.
template <class... Args> CUTRACE_HD_ constexpr int use(const Args &...) { return 0; }
} // namespace cutrace_noop
#define CUTRACE_NOOP_(...) static_cast<void>(false ? ::cutrace_noop::use(__VA_ARGS__) : 0)
#define TRACE_GROUP(name, lead) CUTRACE_NOOP_(name, lead)
#define TRACE_RANGE(...) CUTRACE_NOOP_(__VA_ARGS__)
#define TRACE_RANGE_START(...) (CUTRACE_NOOP_(__VA_ARGS__), ::cutrace_noop::token{})
#define TRACE_RANGE_END(tok) static_cast<void>(tok)
#define TRACE_RECORD(...) CUTRACE_NOOP_(__VA_ARGS__)
#define TRACE_DAG(src, dst) CUTRACE_NOOP_(src, dst)
#define TRACE_GROUPS(...) CUTRACE_NOOP_(__VA_ARGS__)
#define TRACE_RANGE_IF(...) CUTRACE_NOOP_(__VA_ARGS__)
#define TRACE_RECORD_IF(...) CUTRACE_NOOP_(__VA_ARGS__)
#define TRACE_SAMPLE(cond) CUTRACE_NOOP_(cond)
#define TRACE_SAMPLE_REST(cond) CUTRACE_NOOP_(cond)
#endif

#endif // CUTRACE_TRACE_H
