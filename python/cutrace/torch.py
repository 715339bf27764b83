"""cutrace with PyTorch (docs/torch.md): building extensions traced, and one timeline with
torch.profiler.

Building: torch's ninja builds compile every .cu with $PYTORCH_NVCC, so
`PYTORCH_NVCC=cutrace-nvcc` rewrites each one (traced, or stripped with CUTRACE_MODE=strip) on
its way into nvcc. torch links the extension with the host compiler, so the link flags come from
here: build_args() for setup.py's CUDAExtension, load() and load_inline().
"""
import os
import shutil

from . import _cutrace

__all__ = ["build_args", "merge", "flush", "runtime_library", "cutrace_nvcc"]


def _prefix():
    """The cutrace build or install tree: $CUTRACE_ROOT, else the one holding cutrace-nvcc."""
    root = os.environ.get("CUTRACE_ROOT")
    if root:
        return root
    nvcc = cutrace_nvcc()
    if nvcc is None:
        raise RuntimeError("cutrace-nvcc not found: set CUTRACE_ROOT to cutrace's build or "
                           "install tree, or put its bin/ on PATH")
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def cutrace_nvcc():
    """The wrapper torch should compile .cu files with: $PYTORCH_NVCC when it names it, else
    cutrace-nvcc on PATH (None when there is none)."""
    named = os.environ.get("PYTORCH_NVCC", "")
    if os.path.basename(named) == "cutrace-nvcc":
        return shutil.which(named) or named
    return shutil.which("cutrace-nvcc")


def _first_existing(paths, what):
    for p in paths:
        if os.path.exists(p):
            return p
    raise RuntimeError("%s not found in %s" % (what, ", ".join(paths)))


def runtime_library(root=None):
    """libcutrace.so: one copy per process, so every traced extension shares one session and
    one run file (a static runtime in each extension would give each its own)."""
    root = root or _prefix()
    return _first_existing([os.path.join(root, d, "libcutrace.so")
                            for d in ("lib", "lib64", "runtime")], "libcutrace.so")


def mode():
    """The build the wrapper makes: CUTRACE_MODE, traced unless it says strip or off."""
    m = os.environ.get("CUTRACE_MODE", "traced") or "traced"
    if m not in ("traced", "strip", "off"):
        raise ValueError("CUTRACE_MODE must be traced, strip or off, not %r" % m)
    return m


def build_args(root=None, build_mode=None):
    """What a torch extension needs besides its sources, for CUDAExtension(**build_args()) or
    load(..., **build_args()): include_dirs (cutrace's headers), extra_compile_args (a define
    naming the mode, which also keeps a traced and a plain build of one source apart in
    torch's JIT cache) and, traced, extra_link_args linking libcutrace.so with its rpath."""
    build_mode = build_mode or mode()
    root = root or _prefix()
    # An install tree's include/, or a build tree's source checkout (the build folder's parent).
    include = _first_existing([d for d in (os.path.join(root, "include"),
                                           os.path.join(root, "runtime", "include"),
                                           os.path.join(os.path.dirname(root), "runtime", "include"))
                               if os.path.exists(os.path.join(d, "cutrace", "trace.h"))] or
                              [os.path.join(root, "include")], "cutrace's include dir")
    # CUTRACE_TRACED as `cutrace-nvcc --cutrace-cflags` gives it, for host code that tests it.
    defines = ["-DCUTRACE_BUILD_MODE_" + build_mode.upper()]
    if build_mode == "traced":
        defines.append("-DCUTRACE_TRACED")
    args = {"include_dirs": [include],
            "extra_compile_args": {"cxx": list(defines), "nvcc": list(defines)},
            "extra_link_args": []}
    if build_mode == "traced":
        lib = runtime_library(root)
        lib_dir = os.path.dirname(lib)
        args["extra_link_args"] = ["-L" + lib_dir, "-lcutrace", "-Wl,-rpath," + lib_dir]
    return args


def jit_args(name, root=None, build_mode=None):
    """torch.utils.cpp_extension.load / load_inline keywords: build_args() in their spelling
    (extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths) and the module name
    with the mode appended (`ext_traced`), so a traced and a plain build never share a cached
    .so even where the flags are not hashed."""
    build_mode = build_mode or mode()
    a = build_args(root, build_mode)
    return {"name": "%s_%s" % (name, build_mode),
            "extra_cflags": a["extra_compile_args"]["cxx"],
            "extra_cuda_cflags": a["extra_compile_args"]["nvcc"],
            "extra_ldflags": a["extra_link_args"],
            "extra_include_paths": a["include_dirs"]}


def flush(root=None):
    """Waits until every launch recorded so far is in the run file (cutrace::flush()). The file's
    END is written at normal interpreter exit; a process that ends with os._exit should flush
    first (docs/torch.md, "At exit")."""
    import ctypes

    lib = ctypes.CDLL(runtime_library(root), mode=ctypes.RTLD_GLOBAL)
    lib.cutrace_flush()


def merge(profiler_json, run, output, tolerance_us=20.0):
    """torch.profiler's exported trace and a run (a cutrace.Run or a path) as one Perfetto
    trace at `output`; returns the report (matched and unmatched launches)."""
    from . import Run

    run = run if isinstance(run, Run) else Run(run)
    return _cutrace.merge_torch(str(profiler_json), run._file, str(output), tolerance_us)
