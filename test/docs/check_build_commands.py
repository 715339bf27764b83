#!/usr/bin/python3
"""Every `cutrace-nvcc` command and `cutrace_instrument()` call that README.md and docs/*.md show
in a code block runs, and an output shown for it is what it prints. No GPU: builds only.

usage: check_build_commands.py --wrapper CUTRACE-NVCC --trace-rewrite TRACE-REWRITE
                               --build BUILD-DIR --nvcc NVCC [--work DIR] DOC.md...

--work DIR: the scratch folder, emptied first and removed at the end (default: a new temporary
one). A folder of the same name from run to run lets ccache read the projects' compiles back
(CMake passes nvcc the package's include folder as `-isystem=PATH`, which ccache hashes as
written).

A shown line is a line of a fenced block that names `cutrace-nvcc` or `cutrace_instrument(`
(with the lines of its block's command it continues with `\\`). Each is run as below, in a
scratch copy of the project it is written for; a shown line this script does not know how to
run fails the test, so a document cannot show a build command no test runs.

- A `make ... NVCC=...cutrace-nvcc` line: in a copy of examples/multifile (the Makefile project
  the documents build), with `<cutrace>` the prefix the build is installed to and cutrace-nvcc
  and nvcc on PATH. When the block after it is a plain block of command lines, make prints
  exactly those (`<cutrace>` standing for the prefix); a plain block of `build/...` paths after
  that lists files the traced build keeps.
- `cmake -B build ... -DCMAKE_CUDA_COMPILER_LAUNCHER=cutrace-nvcc ...`: in a copy of
  test/wrapper/cmake_project (a CMake project that knows nothing of cutrace), then
  `cmake --build build`.
- `cutrace-nvcc --cutrace-auto ...`: the `...` being a compile of examples/multifile/kernels.cu.
- A ```cmake block with `cutrace_instrument(...)`: the block is the CMakeLists.txt of a project
  (with `cmake_minimum_required`, `project` and `find_package(cutrace)` put first when the block
  lacks them) over the sources and include directories it names, in a copy of
  test/wrapper/project or of the first example that has them all; configured against the
  installed package for sm_90 and built with Ninja, `-D<VAR>=ON` for each `${VAR}` it uses.
- `cutrace_instrument(app AUTO)` in a shell block: that call in the project of the cmake.md
  block (test/wrapper/project's sources).
- Another line of a block that holds such lines, when it is a `trace-rewrite` command on a file
  of examples/multifile: run there too.
- `build/bin/cutrace-nvcc ... NAME.cu -o NAME` (README.md's one-minute path): the ```cpp block of
  the same page whose first line is `// NAME.cu` is that file; the command runs on it in a scratch
  folder and must build NAME with the kernel's traced twin in it.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^```([^\n`]*)\n(.*?)^```\n", re.S | re.M)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MULTIFILE = os.path.join(ROOT, "examples", "multifile")
failures = 0


def fail(what):
    global failures
    failures += 1
    print("FAIL: " + what)


def command_lines(text):
    """The block's lines, a command continued with a trailing backslash joined to its next line,
    each without its trailing comment."""
    out, pending = [], ""
    for line in text.split("\n"):
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line = pending + line
        pending = ""
        out.append(re.sub(r"\s+#(?![{]).*$", "", line).rstrip())
    return out


def run(command, cwd, env, what):
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        fail("%s: `%s` exited %d:\n%s" % (what, command, done.returncode, done.stdout[-3000:]))
        return None
    return done.stdout


def copy_of(src, work, name):
    dst = os.path.join(work, name)
    shutil.copytree(src, dst, symlinks=True)
    return dst


class Runner:
    def __init__(self, tools, build, nvcc, work):
        self.work = work
        self.prefix = os.path.join(work, "prefix")
        done = subprocess.run(["cmake", "--install", build, "--prefix", self.prefix],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            sys.exit("cannot install %s: %s" % (build, done.stdout[-2000:]))
        bindir = os.path.join(work, "tools")
        os.mkdir(bindir)
        for name, path in tools.items():
            os.symlink(os.path.abspath(path), os.path.join(bindir, name))
        self.nvcc = nvcc
        self.env = dict(os.environ, LC_ALL="C", CUDACXX=nvcc,
                        PATH=os.pathsep.join([bindir, os.path.dirname(nvcc), os.environ["PATH"]]))
        for var in ("CUTRACE_MODE", "CUTRACE_AUTO", "CUTRACE_MAX_EVENTS", "CUTRACE_CLOCK"):
            self.env.pop(var, None)
        self.count = 0

    def scratch(self, src):
        self.count += 1
        return copy_of(src, self.work, "p%d" % self.count)

    def make(self, command, what, shown=None, kept=None):
        before = failures
        where = self.scratch(MULTIFILE)
        out = run(command.replace("<cutrace>", self.prefix), where, self.env, what)
        if out is None:
            return
        if shown is not None:
            got = [line.rstrip().replace(self.prefix, "<cutrace>") for line in out.rstrip().split("\n")]
            if got != [line.rstrip() for line in shown]:
                fail("%s: `%s` prints\n  %s\nwhere the document shows\n  %s"
                     % (what, command, "\n  ".join(got), "\n  ".join(shown)))
        for path in kept or []:
            if not os.path.exists(os.path.join(where, path)):
                fail("%s: the traced build keeps no %s" % (what, path))
        if failures == before:
            print("ok: %s: %s" % (what, command))

    def in_multifile(self, command, what):
        where = self.scratch(MULTIFILE)
        os.makedirs(os.path.join(where, "build"), exist_ok=True)
        if run(command, where, self.env, what) is not None:
            print("ok: %s: %s" % (what, command))

    def shown_file(self, command, page_blocks, what):
        """A one-file build of a file the page shows in full (its first line names it)."""
        source = re.search(r"(\S+)\.cu\b", command)
        program = re.search(r"-o (\S+)", command)
        shown = [text for lang, text in page_blocks
                 if lang == "cpp" and source and text.startswith("// %s.cu\n" % source.group(1))]
        if not source or not program or len(shown) != 1:
            fail("%s: `%s` builds no file the page shows once in a ```cpp block" % (what, command))
            return
        self.count += 1
        where = os.path.join(self.work, "p%d" % self.count)
        os.makedirs(where)
        with open(os.path.join(where, source.group(1) + ".cu"), "w") as f:
            f.write(shown[0])
        if run(command.replace("build/bin/cutrace-nvcc", "cutrace-nvcc", 1), where, self.env,
               what) is None:
            return
        built = os.path.join(where, program.group(1))
        symbols = subprocess.run(["nm", "-C", built], capture_output=True, text=True).stdout
        if "_cutrace_traced" not in symbols:
            fail("%s: `%s` built %s without a traced twin" % (what, command, program.group(1)))
        else:
            print("ok: %s: %s" % (what, command))

    def launcher(self, command, what):
        where = self.scratch(os.path.join(ROOT, "test", "wrapper"))
        project = os.path.join(where, "cmake_project")
        if run(command, project, self.env, what) is not None and \
                run("cmake --build build", project, self.env, what) is not None:
            print("ok: %s: %s" % (what, command))

    def cmake_project(self, cmake_text, what):
        sources = []
        for m in re.finditer(r"add_executable\(\s*\S+\s+([^)]*)\)", cmake_text):
            sources += m.group(1).split()
        dirs = []
        for m in re.finditer(r"target_include_directories\(([^)]*)\)", cmake_text):
            dirs += [w for w in m.group(1).split()[1:] if w not in ("SYSTEM", "PRIVATE", "PUBLIC")]
        # The project holding every source and directory the block names; its parent folder is
        # copied whole (an example includes ../common).
        candidates = [(os.path.join(ROOT, "test", "wrapper"), "project")] + [
            (os.path.join(ROOT, "examples"), d) for d in sorted(os.listdir(os.path.join(ROOT, "examples")))]
        home = None
        for parent, sub in candidates:
            folder = os.path.join(parent, sub)
            if all(os.path.exists(os.path.join(folder, f)) for f in sources + dirs):
                home = (parent, sub)
                break
        if home is None:
            fail("%s: no project holds %s" % (what, " ".join(sources + dirs)))
            return
        where = os.path.join(self.scratch(home[0]), home[1])
        head = []
        if "cmake_minimum_required" not in cmake_text:
            head.append("cmake_minimum_required(VERSION 3.25)")
        if not re.search(r"^project\(", cmake_text, re.M):
            head.append("project(shown LANGUAGES CXX CUDA)")
        if "find_package(cutrace" not in cmake_text:
            head.append("find_package(cutrace CONFIG REQUIRED)")
        with open(os.path.join(where, "CMakeLists.txt"), "w") as f:
            f.write("\n".join(head + [cmake_text]) + "\n")
        defines = " ".join("-D%s=ON" % v for v in sorted(set(re.findall(r"\$\{(\w+)\}", cmake_text))))
        configure = ("cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 "
                     "-DCMAKE_PREFIX_PATH=%s %s" % (self.prefix, defines))
        if run(configure, where, self.env, what) is not None and \
                run("cmake --build build", where, self.env, what) is not None:
            print("ok: %s: a project of %s builds" % (what, " ".join(sources)))


def blocks(doc):
    found = list(BLOCK.finditer(doc))
    return [(b.group(1).strip(), b.group(2)) for b in found]


def check_doc(runner, path, generic_cmake):
    doc = open(path).read()
    bs = blocks(doc)
    name = os.path.relpath(path, ROOT)
    for i, (lang, text) in enumerate(bs):
        lines = command_lines(text.rstrip("\n"))
        if not any("cutrace-nvcc" in l or "cutrace_instrument(" in l for l in lines):
            continue
        if lang == "cmake":
            runner.cmake_project(text, name)
            continue
        if lang == "" and all(l.startswith(("<cutrace>/bin/cutrace-nvcc ", "mkdir ")) for l in lines if l):
            continue  # an output block: compared by the command that prints it
        for line in lines:
            if not line or line.startswith("cd examples/multifile"):
                continue
            what = "%s: %s" % (name, line)
            if re.match(r"^(CUTRACE_\w+=\S+ )*make .*NVCC=\S*cutrace-nvcc", line):
                shown = kept = None
                follows = bs[i + 1] if i + 1 < len(bs) else None
                traced = "CUTRACE_MODE=strip" not in line and "CUTRACE_AUTO" not in line
                if traced and follows and follows[0] == "" and "/cutrace-nvcc -" in follows[1]:
                    shown = follows[1].rstrip("\n").split("\n")
                    after = bs[i + 2] if i + 2 < len(bs) else None
                    if after and after[0] == "" and after[1].startswith("build/"):
                        kept = []
                        for row in after[1].rstrip("\n").split("\n"):
                            first, _, rest = row.partition(" ")
                            if first.endswith(","):  # "main.trace_map.h, .json"
                                first = first[:-1]
                                other = rest.split()[0]
                                kept.append(os.path.splitext(first)[0] + other)
                            kept.append(first)
                runner.make(line, name, shown, kept)
            elif line.startswith("cmake -B build") and "CMAKE_CUDA_COMPILER_LAUNCHER=cutrace-nvcc" in line:
                runner.launcher(line, name)
            elif line.startswith("cutrace-nvcc --cutrace-auto ..."):
                runner.in_multifile(line.replace(
                    "...", "-std=c++17 -isystem third_party -arch=sm_90 -c kernels.cu -o build/kernels.o"),
                    name)
            elif line.startswith("cutrace_instrument(app AUTO)"):
                if generic_cmake is None:
                    fail("%s: no cmake.md project to put `%s` in" % (what, line))
                else:
                    runner.cmake_project(re.sub(r"cutrace_instrument\([^)]*\)", line, generic_cmake), name)
            elif line.startswith("trace-rewrite ") and re.search(r"\bkernels\.cu\b", line):
                runner.in_multifile(line, name)
            elif line.startswith("cmake --build build --target "):
                continue  # builds the tools this check is given
            elif line.startswith("build/bin/cutrace-nvcc "):
                runner.shown_file(line, bs, name)
            elif "cutrace-nvcc" in line or "cutrace_instrument(" in line:
                fail("%s: shown, but no test runs it (test/docs/check_build_commands.py)" % what)


def main(argv):
    opts, docs = {}, []
    it = iter(argv)
    for a in it:
        if a in ("--wrapper", "--trace-rewrite", "--build", "--nvcc", "--work"):
            opts[a] = next(it)
        else:
            docs.append(a)
    if not {"--wrapper", "--trace-rewrite", "--build", "--nvcc"} <= opts.keys() or not docs:
        sys.exit(__doc__)
    if "--work" in opts:
        work = os.path.abspath(opts["--work"])
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    else:
        work = tempfile.mkdtemp()
    try:
        runner = Runner({"cutrace-nvcc": opts["--wrapper"], "trace-rewrite": opts["--trace-rewrite"]},
                        opts["--build"], opts["--nvcc"], work)
        # cmake.md's own block is the project the shell blocks' cutrace_instrument() lines go in.
        generic = None
        for doc in docs:
            if os.path.basename(doc) == "cmake.md":
                for lang, text in blocks(open(doc).read()):
                    if lang == "cmake" and "cutrace_instrument(" in text:
                        generic = text
                        break
        for doc in docs:
            check_doc(runner, doc, generic)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d projects built, %d failures" % (runner.count, failures))
    return 1 if failures or runner.count == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
