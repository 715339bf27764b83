"""The generator of annotated inputs for the strip oracle (test/oracle/oracle.py).

A case is a fragment of a .cu file: one `namespace NS { ... }` (NS unique per case) holding one or
more kernels whose bodies mix ordinary statements with annotations in the shapes that have broken
strip or `--traced` before: comments and line continuations around annotations, directives
between a statement and its body, labels, `case`/`default`, sole bodies of
`if`/`else`/`do`/`while`/range-for, annotations produced by macros, digraphs, raw strings and
comments holding annotation text, nested blocks, `goto` past ranges, overloads, namespaces on one
line, templates, variadic templates, explicit specialisations, multi-line annotations, CRLF.

Every macro a case defines starts with its own prefix and is #undef'd at the end, so cases can
share one translation unit. Every kernel writes to memory, so a statement that strip turns into
code, or deletes, shows in the PTX. A case is a function of (seed, index) alone.

Shape families whose bugs are known and still open are listed in KNOWN_OPEN; `--skip-known-open`
leaves them out (oracle.py prints which were left out).
"""

import random

# Families of shapes left out by --skip-known-open (name: what is open). Empty when every class
# found so far is fixed.
KNOWN_OPEN = {}


def _name(rng):
    return rng.choice(["a", "b", "step", "load", "mma", "tile k", "x\\ty", "\\u00e4"])


def _payload(rng):
    return rng.choice(["1", "threadIdx.x", "blockIdx.x * 2", "(int)sizeof(int)", "42 + 1"])


def _record(rng):
    n = _name(rng)
    return rng.choice([
        f'TRACE_RECORD("{n}");',
        f'TRACE_RECORD("{n}", {_payload(rng)});',
        f'TRACE_RECORD("{n}", {_payload(rng)}, "lane");',
        f'TRACE_RECORD ( "{n}" ) ;',
        f'TRACE_RECORD/*c*/("{n}");',
    ])


def _range(rng):
    n = _name(rng)
    return rng.choice([f'TRACE_RANGE("{n}");', f'TRACE_RANGE("{n}", "l2");',
                       f'TRACE_RANGE("{n}", "main", {_payload(rng)});'])


def _annotation(rng):
    return rng.choice([_record, _record, _range])(rng)


def _store(rng, v):
    return f"x[{v % 8}] = {v};"


# Each shape: (rng, ctx) -> body text (statements of a kernel `__global__ void NAME(int *x)` body).
# ctx.p is the case's macro prefix, ctx.v() gives fresh store values.

class Ctx:
    def __init__(self, prefix, rng):
        self.p = prefix
        self.rng = rng
        self.counter = 0
        self.defines = []  # macro names to #undef at the end
        self.top = []  # text placed before the kernels, inside the namespace

    def v(self):
        self.counter += 1
        return self.counter

    def store(self):
        return _store(self.rng, self.v())

    def define(self, name, body, params=None):
        full = self.p + name
        self.defines.append(full)
        head = f"{full}({params})" if params is not None else full
        return f"#define {head} {body}"


def s_comment_continuation(rng, c):
    ann = _annotation(rng)
    return rng.choice([
        f"  {ann} // note \\\n  {c.store()}\n  {c.store()}\n",
        f"  {ann} // note \\\n  {c.store()} \\\n  {c.store()}\n  {c.store()}\n",
        f"  {ann} //\\\n  {c.store()}\n",
        f"  {c.store()} // note \\\n  {ann}\n  {c.store()}\n",
        f"  {ann} /* begin\n  {c.store()} */ {c.store()}\n",
        f"  /* a\n  b */ {ann}\n  {c.store()}\n",
        f"  {ann} /* c */ /* d\n  */\n  {c.store()}\n",
        f"  {ann} \\\n  {c.store()}\n",
        f"  TRACE_RECORD(\"{_name(rng)}\", \\\n    1); {c.store()}\n",
        f"  TRACE_REC\\\nORD(\"{_name(rng)}\");\n  {c.store()}\n",
    ])


def s_directive_body(rng, c):
    ann = _annotation(rng)
    kw = rng.choice(["if (x[0])", "while (x[0] > 5)", "for (int i = 0; i < x[1]; ++i)",
                     "if (x[0]) {} else"])
    a_def = rng.random() < 0.5
    top = c.define("A", "1") + "\n" if a_def else ""
    a = c.p + "A"
    return top + rng.choice([
        f"  {kw}\n#ifdef {a}\n    {c.store()}\n#else\n    {ann}\n#endif\n  {c.store()}\n",
        f"  {kw}\n#ifndef {a}\n    {c.store()}\n#else\n    {ann}\n#endif\n  {c.store()}\n",
        f"  {kw}\n#if 0\n    {c.store()}\n#endif\n    {ann}\n  {c.store()}\n",
        f"  {kw}\n#if 0\n    {ann}\n#endif\n    {c.store()}\n  {c.store()}\n",
        f"  {kw}\n#pragma unroll 1\n    {c.store()}\n  {ann}\n  {c.store()}\n",
        f"  {kw}\n#ifdef {a}\n    {ann}\n#endif\n    {c.store()}\n  {c.store()}\n",
        f"  {kw}\n#ifdef {a}\n#endif\n    {ann}\n  {c.store()}\n",
        f"  {kw}\n#define {a}_X 1\n    {ann}\n  {c.store()}\n#undef {a}_X\n",
    ])


def s_label(rng, c):
    ann = _annotation(rng)
    lbl = f"{c.p.lower()}lbl{c.v()}"
    return rng.choice([
        f"  if (x[0])\n  {lbl}: {ann}\n  {c.store()}\n",
        f"  if (x[0])\n  {lbl}:\n    {ann}\n  {c.store()}\n",
        f"  {c.store()}\n  {lbl}: {ann}\n  {c.store()}\n  if (x[3] == 7) goto {lbl};\n",
        f"  {{\n    {c.store()}\n    {lbl}: {ann}\n  }}\n  if (x[3] == 7) goto {lbl};\n",
        f"  if (x[3] == 9) goto {lbl};\n  {c.store()}\n  {lbl}:\n  {ann}\n  {c.store()}\n",
    ])


def s_case(rng, c):
    ann = _annotation(rng)
    return rng.choice([
        f"  switch (x[0]) {{\n  case 0: {ann}\n  case 1: {c.store()} break;\n"
        f"  default: {ann}\n    {c.store()}\n  }}\n",
        f"  switch (x[0]) {{\n  case 0:\n    {ann}\n    break;\n  default:\n    {c.store()}\n  }}\n",
        f"  switch (x[0]) {{\n  case 0: {c.store()} break;\n  default: {ann}\n  }}\n",
        f"  switch (x[0]) {{\n  case 0: {c.store()} break;\n  case 2:\n    {ann}\n  }}\n",
        f"  switch (x[0])\n  case 0: {ann}\n  {c.store()}\n",
        f"  switch (x[0]) {{\n  case 0: {{ {ann} }}\n  {c.store()}\n  }}\n",
    ])


def s_sole_body(rng, c):
    ann = _annotation(rng)
    return rng.choice([
        f"  if (x[0]) {c.store()} else {ann}\n  {c.store()}\n",
        f"  if (x[0]) {c.store()}\n  else\n    {ann}\n  {c.store()}\n",
        f"  do {ann} while (0);\n  {c.store()}\n",
        f"  do\n    {ann}\n  while (x[0] == 3);\n  {c.store()}\n",
        f"  for (int v : {{1, 2}}) {ann}\n  {c.store()}\n",
        f"  for (int v : {{1, 2}})\n    {ann}\n  {c.store()}\n",
        f"  if (x[0]) /* c */ {ann}\n  {c.store()}\n",
        f"  if (x[0]) // c\n    {ann}\n  {c.store()}\n",
        f"  if (x[0])\n\n    {ann}\n  {c.store()}\n",
        f"  while (x[0] == 1) {ann}\n  {c.store()}\n",
        f"  if (x[0]) {c.store()} else if (x[1]) {ann}\n  {c.store()}\n",
        f"  if (x[0]) {{ {ann} }} else {c.store()}\n  {c.store()}\n",
        f"  for (int v : {{1, 2}}) {{ {ann} x[v] = v; }}\n",
        f"  if (x[0])\n    {ann}{c.store()}\n  {c.store()}\n",
        f"  if (x[0]) {ann} {c.store()}\n  {c.store()}\n",
    ])


def s_macro(rng, c):
    n = _name(rng)
    p = c.p
    kind = rng.randrange(7)
    if kind == 0:
        return (c.define("CAT", "a##b", "a, b") + f"\n  {p}CAT(TRACE_, RECORD)(\"{n}\");\n"
                f"  {c.store()}\n")
    if kind == 1:
        return c.define("R", "TRACE_RECORD") + f"\n  {p}R(\"{n}\");\n  {c.store()}\n"
    if kind == 2:
        return c.define("W", "s", "s") + f"\n  {p}W(TRACE_RECORD(\"{n}\"));\n  {c.store()}\n"
    if kind == 3:
        return c.define("R", f'TRACE_RECORD("{n}")') + f"\n  {p}R;\n  {c.store()}\n"
    if kind == 4:
        return (c.define("CAT", "a##b", "a, b") + f"\n  {p}CAT(TRACE_, RANGE)(\"{n}\");\n"
                f"  {c.store()}\n")
    if kind == 5:
        return (c.define("N", f'"{n}"') + f"\n  TRACE_RECORD({p}N);\n  {c.store()}\n")
    return (c.define("STORE", "x[1] = 2") + f"\n  TRACE_RECORD(\"{n}\"); {p}STORE;\n"
            f"  {c.store()}\n")


def s_digraph(rng, c):
    ann = _annotation(rng)
    return rng.choice([
        f"  <% {ann} x<:0:> = 1; %>\n",
        f"  if (x[0]) <% {ann} %>\n  {c.store()}\n",
        f"%:ifdef {c.p}NOPE\n  {ann}\n%:endif\n  {c.store()}\n",
        f"  {ann} x<:1:> = 2;\n",
    ])


def s_string(rng, c):
    n = _name(rng)
    s = f"s{c.v()}"
    return rng.choice([
        f'  const char *{s} = R"(TRACE_RECORD("{n}");)"; x[0] = {s}[3];\n',
        f'  const char *{s} = R"cut(\nTRACE_RECORD("{n}");\n)cut"; x[0] = {s}[2];\n',
        f'  const char *{s} = "TRACE_RECORD(\\"{n}\\");"; x[0] = {s}[2];\n',
        f'  // TRACE_RECORD("{n}");\n  {c.store()}\n',
        f'  /* TRACE_RECORD("{n}"); */ {c.store()}\n',
        f"  x[0] = 'T'; {_annotation(rng)} x[1] = '\"';\n",
        f'  const char *{s} = "\\\nTRACE_RECORD(\\"{n}\\");"; x[0] = {s}[2];\n',
        f'  const char *{s} = R"(\n  )" "TRACE_RECORD"; {_annotation(rng)} x[0] = {s}[1];\n',
    ])


def s_nested(rng, c):
    depth = rng.randint(1, 4)
    inner = f"{_annotation(rng)} {c.store()}"
    for _ in range(depth):
        inner = "{ " + (_range(rng) + " " if rng.random() < 0.5 else "") + inner + " }"
    return f"  {inner}\n  {c.store()}\n"


def s_goto(rng, c):
    lbl = f"{c.p.lower()}done{c.v()}"
    return rng.choice([
        f"  if (x[0]) goto {lbl};\n  {_range(rng)}\n  {c.store()}\n  {lbl}: {c.store()}\n",
        f"  {{\n    if (x[0]) goto {lbl};\n    {_range(rng)}\n    {c.store()}\n  }}\n"
        f"  {lbl}: {c.store()}\n",
        f"  if (x[0]) goto {lbl};\n  {{\n    {_range(rng)}\n    {c.store()}\n  }}\n"
        f"  {lbl}: {c.store()}\n",
    ])


def s_multiline(rng, c):
    n = _name(rng)
    tok = f"tok{c.v()}"
    return rng.choice([
        f'  TRACE_RECORD(\n      "{n}",\n      1);\n  {c.store()}\n',
        f'  TRACE_RANGE("{n}",\n              "lane2");\n  {c.store()}\n',
        f'  auto {tok} = TRACE_RANGE_START(\n      "{n}");\n  {c.store()}\n  TRACE_RANGE_END({tok});\n',
        f'  const auto {tok} =\n      TRACE_RANGE_START("{n}", "main", 3);\n  {c.store()}\n'
        f'  TRACE_RANGE_END(\n      {tok});\n',
        f'  {c.store()} TRACE_RECORD(\n      "{n}"); {c.store()}\n',
        f'  TRACE_RECORD("{n}",\n#ifdef {c.p}NOPE\n      1\n#else\n      2\n#endif\n      );\n'
        f'  {c.store()}\n',
        f'  TRACE_RECORD\n#ifdef {c.p}NOPE\n      ("{n}", 1);\n#else\n      ("{n}", 2);\n#endif\n'
        f'  {c.store()}\n',
    ])


def s_plain(rng, c):
    return f"  {_annotation(rng)}\n  {c.store()}\n"


def s_lambda(rng, c):
    f = f"f{c.v()}"
    return (f"  auto {f} = [&](int i) {{ {_annotation(rng)} x[i] = i; }};\n  {f}(1);\n"
            f"  {c.store()}\n")


def s_pragma_loop(rng, c):
    ann = _annotation(rng)
    return rng.choice([
        f"#pragma unroll\n  for (int i = 0; i < 4; ++i) {{ {ann} x[i] += i; }}\n",
        f"#pragma unroll 1\n  for (int i = 0; i < x[1]; ++i) {{\n    {ann}\n    x[i] += i;\n  }}\n",
        f"  {ann}\n#pragma unroll\n  for (int i = 0; i < 4; ++i) x[i] += i;\n",
        f"#pragma nv_diag_suppress 177\n  {ann}\n  {c.store()}\n",
    ])


def s_pragma_before_annotation(rng, c):
    """A statement pragma, then an annotation, then the loop: without the annotation the pragma
    binds to the loop."""
    ann = _annotation(rng)
    pragma = rng.choice(["#pragma unroll 1", "#pragma unroll", "#pragma unroll 2",
                         "_Pragma(\"unroll 1\")"])
    return rng.choice([
        f"{pragma}\n  {ann}\n  for (int i = 0; i < 4; ++i) x[i] += i;\n",
        f"{pragma}\n  {ann} // why\n\n  for (int i = 0; i < x[2]; ++i) x[i] += i;\n",
        f"{pragma}\n  {ann}\n  {ann}\n  while (x[0] < 4) x[0] += 1;\n",
    ])


def s_sample_pragma_macro(rng, c):
    """TRACE_SAMPLE before a loop that begins with a macro, as CUTLASS writes its main loop:
    `_Pragma("unroll 1")` in the device compilation and nothing in the host one, the pragma in
    both, or a macro that writes the loop header."""
    ann = _annotation(rng)
    kind = rng.randrange(3)
    if kind == 0:
        head = c.p + "NO_UNROLL"
        pragma = c.define("NO_UNROLL", '_Pragma("unroll 1")')
        c.top.append(f"#if defined(__CUDA_ARCH__)\n{pragma}\n#else\n#define {head}\n#endif\n")
        loop = f"{head}\n  for (int i = 0; i < x[1]; ++i) {{\n    {ann}\n    x[i] += i;\n  }}\n"
    elif kind == 1:
        c.top.append(c.define("NO_UNROLL", '_Pragma("unroll 1")') + "\n")
        loop = (f"{c.p}NO_UNROLL\n  for (int i = 0; i < x[1]; ++i) {{\n    {ann}\n"
                f"    x[i] += i;\n  }}\n")
    else:
        c.top.append(c.define("FOR_EACH", "for (int i = 0; i < (n); ++i)", "n") + "\n")
        loop = f"{c.p}FOR_EACH(x[1]) {{\n    {ann}\n    x[i] += i;\n  }}\n"
    return f"  TRACE_SAMPLE(x[0] > 0);\n  {loop}"


def s_counter(rng, c):
    """`__COUNTER__` in an annotated body, written there and through macros (one pasting a name,
    one call over two lines): the twin's copy must write what the original got, so that the code
    after it sees the plain build's values (oracle.py compares every function's PTX)."""
    defs = [c.define("CAT2", "a##b", "a, b"), c.define("CAT", f"{c.p}CAT2(a, b)", "a, b"),
            c.define("ID", "x", "x"), c.define("CTR", "(__COUNTER__ + 1)")]
    v = c.v()
    forms = [f"  x[{v % 8}] = __COUNTER__;\n",
             f"  x[{v % 8}] = {c.p}ID(__COUNTER__);\n",
             f"  {{ int {c.p}CAT(u, __COUNTER__) = {v}; x[{v % 8}] = {v}; }}\n",
             f"  x[{v % 8}] = {c.p}CTR +\n      {c.p}ID(\n      __COUNTER__);\n"]
    picked = rng.sample(forms, rng.randint(1, 3))
    return "".join(d + "\n" for d in defs) + "".join(picked) + f"  {_annotation(rng)}\n"


BODY_SHAPES = {
    "comment_continuation": s_comment_continuation,
    "directive_body": s_directive_body,
    "label": s_label,
    "case": s_case,
    "sole_body": s_sole_body,
    "macro": s_macro,
    "digraph": s_digraph,
    "string": s_string,
    "nested": s_nested,
    "goto": s_goto,
    "multiline": s_multiline,
    "plain": s_plain,
    "lambda": s_lambda,
    "pragma_loop": s_pragma_loop,
    "pragma_before_annotation": s_pragma_before_annotation,
    "sample_pragma_macro": s_sample_pragma_macro,
    "counter": s_counter,
}


# Whole-kernel shapes: (rng, ctx, body) -> kernels text (inside the case's namespace).

def k_plain(rng, c, body):
    head = rng.choice(["__global__ void k(int *x) {", "__global__ void k(int *x)\n{",
                       "__global__ void k(int *x) <%"])
    close = "%>" if head.endswith("<%") else "}"
    grp = (f'  TRACE_GROUP("g", 0);\n' if rng.random() < 0.3 else "")
    return f"{head}\n{grp}{body}{close}\n"


def k_overload(rng, c, body):
    return (f"__global__ void k(int *x) {{\n{body}}}\n"
            f"__global__ void k(float *y) {{\n  int *x = (int *)y;\n{body}}}\n")


def k_namespace_one_line(rng, c, body):
    flat = " ".join(l.strip() for l in body.splitlines())
    if any(t in body for t in ("#", "%:", "//", "\\")):
        flat = f'TRACE_RANGE("r"); {c.store()}'
    two = rng.random() < 0.5
    text = f"namespace a {{ __global__ void k(int *x) {{ {flat} }} }}\n"
    if two:
        text += f'namespace b {{ __global__ void k(int *x) {{ TRACE_RANGE("r"); {c.store()} }} }}\n'
    return text


def k_template(rng, c, body):
    kind = rng.randrange(3)
    if kind == 0:
        return (f"template <class T> __global__ void k(T *t) {{\n  int *x = (int *)t;\n{body}}}\n"
                f"template __global__ void k<int>(int *);\n")
    if kind == 1:
        return (f"template <class T> __global__ void k(T *t) {{\n  int *x = (int *)t;\n"
                f"  TRACE_RANGE(\"generic\");\n  x[0] = 1;\n}}\n"
                f"template <> __global__ void k<float>(float *t) {{\n  int *x = (int *)t;\n{body}}}\n")
    return (f"template <class... Ts> __global__ void k(int *x, Ts... ts) {{\n{body}}}\n"
            f"template __global__ void k<int>(int *, int);\n")


def k_macro_signature(rng, c, body):
    return (c.define("KERNEL", "__global__ void name(int *x)", "name") +
            f"\n{c.p}KERNEL(k) {{\n{body}}}\n")


def k_device_helper(rng, c, body):
    return (f"__device__ __noinline__ void h(int *x) {{\n{body}}}\n"
            f"__global__ void k(int *x) {{\n  {_range(rng)}\n  h(x);\n}}\n")


def k_value_uses(rng, c, body):
    """A template kernel's instance used as a value in host code, each form with the type the
    plain build gives it: a traced build that changed what a form means (the address of some
    variable instead of the kernel) fails the static_assert."""
    forms = ["&k<int>", "&(k<int>)", "(&k<int>)", "+k<int>", "(void *)k<int>",
             "reinterpret_cast<const void *>(&k<int>)", "(kernel_ptr)(k<int>)"]
    types = {"(void *)k<int>": "void *", "reinterpret_cast<const void *>(&k<int>)": "const void *"}
    uses = "".join(
        f"  static_assert(same_type<decltype({f}), {types.get(f, 'kernel_ptr')}>::value, \"\");\n"
        f"  sink((const void *)({f}));\n" for f in rng.sample(forms, rng.randint(2, len(forms))))
    c.top.append(c.define("SINK", "sink((const void *)(k))", "k") + "\n")
    return (f"template <class T> __global__ void k(T *t) {{\n  int *x = (int *)t;\n{body}}}\n"
            "template <class A, class B> struct same_type { static constexpr bool value = false; };\n"
            "template <class A> struct same_type<A, A> { static constexpr bool value = true; };\n"
            "using kernel_ptr = void (*)(int *);\n"
            "inline void sink(const void *) {}\n"
            f"inline void use_k() {{\n{uses}  {c.p}SINK(k<int>);\n}}\n")


def k_device_only_call(rng, c, body):
    """The call graph is the device compilation's: the helper's only call sits in a branch one
    compilation alone sees (the device's, the arch-specific one's, or the host's)."""
    guard = rng.choice(["#if defined(__CUDA_ARCH__)", "#ifdef __CUDA_ARCH__",
                        "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)", "#ifndef __CUDA_ARCH__"])
    return (f"__device__ __forceinline__ void h(int *x) {{\n{body}}}\n"
            f"__global__ void k(int *x) {{\n{guard}\n  h(x);\n#else\n  {c.store()}\n#endif\n}}\n")


def k_device_only_body(rng, c, body):
    """A kernel whose whole body only the device compilation sees."""
    guard = rng.choice(["#if defined(__CUDA_ARCH__)", "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)"])
    return f"__global__ void k(int *x) {{\n{guard}\n{body}#endif\n}}\n"


def k_groups_together(rng, c, body):
    """Groups declared together, then a marker and a call: each thread records into the group
    whose row it writes."""
    return (f"__device__ __forceinline__ void h(int *x) {{\n{body}}}\n"
            f'__global__ void k(int *x) {{\n  TRACE_GROUP("p", 0);\n'
            f'  TRACE_GROUPS("c", 128, 128);\n  {_range(rng)}\n  h(x);\n}}\n')


def k_code_after(rng, c, body):
    """The annotated kernel, then functions without a twin that read `__COUNTER__`, `__LINE__` and
    `__FILE__`, some after a `#line` of the user's (the batch restores the numbering after the
    case, not the name): what they read must not change in the traced build."""
    v = c.v()
    line = rng.choice(["", "#line 500\n", "# 700\n", '#line 900 "gen.y"\n'])
    # __LINE__ only after a #line (strip removes lines, as if the annotations were never
    # written), __FILE__ only after one that renames the file (each side compiles its own file).
    lines = "  x[1] = __LINE__;\n" if line else ""
    file = "  x[2] = (int)sizeof(__FILE__);\n" if "gen.y" in line else ""
    after = (f"__device__ __noinline__ int after_d(int v) {{ return v + __COUNTER__; }}\n"
             f"__global__ void after(int *x) {{\n  x[0] = __COUNTER__;\n{lines}{file}"
             f"  x[3] = after_d({v});\n}}\n")
    return f"__global__ void k(int *x) {{\n{body}}}\n{line}{after}"


def k_pass_through(rng, c, body):
    """The annotated code is a class's operator(), reached from a generic kernel only through
    wrappers that hold no annotation: a template deriving from it whose call
    `K::operator()(args...)` depends on its parameter (FlashAttention-3's enable_sm90), maybe
    under a device guard, and a plain derived class calling `Work::operator()(x)`."""
    guard = rng.choice([("", ""), ("#if defined(__CUDA_ARCH__)\n", "#endif\n")])
    return (f"struct Work {{\n  __device__ void operator()(int *x) {{\n{body}  }}\n}};\n"
            f"template <class K> struct wrap : K {{\n  template <class... A>\n"
            f"  __device__ void operator()(A &&...a) {{\n{guard[0]}"
            f"    K::operator()(static_cast<A &&>(a)...);\n{guard[1]}  }}\n}};\n"
            f"struct fwd : Work {{\n  __device__ void operator()(int *x) {{ Work::operator()(x); }}\n}};\n"
            f"template <class Op> __global__ void run(int *x) {{\n  Op op;\n  op(x);\n}}\n"
            f"template __global__ void run<wrap<Work>>(int *);\n"
            f"template __global__ void run<fwd>(int *);\n")


KERNEL_SHAPES = {
    "kernel": k_plain,
    "overload": k_overload,
    "namespace_one_line": k_namespace_one_line,
    "template": k_template,
    "macro_signature": k_macro_signature,
    "device_helper": k_device_helper,
    "value_uses": k_value_uses,
    "device_only_call": k_device_only_call,
    "device_only_body": k_device_only_body,
    "groups_together": k_groups_together,
    "code_after": k_code_after,
    "pass_through": k_pass_through,
}


class Case:
    def __init__(self, index, namespace, text, shapes):
        self.index, self.namespace, self.text, self.shapes = index, namespace, text, shapes


def make_case(seed, index, skip=()):
    """Case `index` of run `seed`: a fragment `namespace NS { ... }` with its macros #undef'd."""
    rng = random.Random(f"{seed}:{index}")
    ns = f"oracle_case_{index:06d}"
    c = Ctx(f"OC{index}_", rng)
    body_names = [n for n in BODY_SHAPES if n not in skip]
    kernel_names = [n for n in KERNEL_SHAPES if n not in skip]
    # Most kernels are plain, so most cases stress the body shapes.
    kernel = rng.choice(["kernel"] * 4 + kernel_names) if "kernel" in kernel_names else \
        rng.choice(kernel_names)
    picked = [rng.choice(body_names) for _ in range(rng.choice([1, 1, 2, 3]))]
    body = "".join(BODY_SHAPES[n](rng, c) for n in picked)
    # Directives in a body are fine as they are; a #define line in a body stays a line.
    kernels = KERNEL_SHAPES[kernel](rng, c, body)
    undefs = "".join(f"#undef {m}\n" for m in sorted(set(c.defines)))
    text = f"namespace {ns} {{\n{''.join(c.top)}{kernels}{undefs}}} // namespace {ns}\n"
    if rng.random() < 0.15:
        text = text.replace("\n", "\r\n")
    return Case(index, ns, text, [kernel] + picked)
