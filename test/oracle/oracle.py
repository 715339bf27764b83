#!/usr/bin/env python3
"""The strip oracle, as a property over generated and corpus inputs (docs/reliability.md, "The
strip oracle").

For every annotated file that nvcc compiles with the annotations as the no-op macros of
<cutrace/trace.h>:
  * strip accepts it (exit 0) => the stripped file's PTX equals the annotated file's PTX
    (`nvcc -ptx -arch=sm_90`; left out of the comparison: the `//` comment lines at the top,
    which name tool versions, and the file hashes in internal-linkage names, see tools.py);
  * strip refuses it => `--verify-strip` refuses it too; `--verify-strip` never passes a file
    whose strip changes the PTX;
  * `--traced` accepts it (exit 0) => nvcc compiles the traced output (`-arch=sm_90a -c`, with
    the runtime headers and the decode map, as the traced golden test compiles);
  * and every function of the annotated file's PTX is in the traced output's PTX, line for line:
    the twins are added beside the functions and change none of them (what `__COUNTER__`,
    `__LINE__` and `__FILE__` give in code after a twin included).

Inputs: generated cases (test/oracle/shapes.py), many per translation unit, each in a namespace
of its own with its own macro names, so that one nvcc run per side checks a whole batch; a batch
that differs is narrowed to its cases (by the namespace in the differing functions, or by the
line of an error) and each suspect is checked alone. With --corpus N, also N files (all: -1) of
the repository's annotated inputs (test/inputs/strip, test/inputs/traced, examples), one by one.

A failing case prints its input, the stripped or traced output and the differing PTX lines, and
is saved in --keep (default WORK/failures) as case_N.cu with the outputs beside it.

usage: oracle.py --rewrite BIN [--nvcc NVCC] [--seed S] [--count N] [--first I] [--batch B]
                 [--jobs J] [--corpus N] [--skip-known-open] [--work DIR] [--keep DIR]
Exit status: 0 when the property holds for every input, 1 when it does not, 2 on a usage error,
77 when there is no nvcc.
"""

import argparse
import concurrent.futures
import difflib
import random
import shutil
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import shapes  # noqa: E402
from tools import (CLANG_ERROR, INCLUDE_LINE, NAMESPACE_RE, NVCC_ERROR, Batch,  # noqa: E402
                   cases_in_ptx_diff, error_lines, ptx_diff, ptx_functions, read, run, write)

COUNTS = ["inputs", "discarded (annotated form does not compile)", "compiled",
          "strip accepted", "strip refused", "PTX differing",
          "verify-strip passing a refused or PTX-changing file", "traced accepted",
          "traced refused", "traced failing to compile",
          "functions whose PTX the traced build changes"]
FAILURE_COUNTS = COUNTS[5], COUNTS[6], COUNTS[9], COUNTS[10]


class Oracle:
    def __init__(self, args):
        self.args = args
        self.counts = {k: 0 for k in COUNTS}
        self.failures = []
        self.lock = threading.Lock()
        # -c with -ptx writes the same PTX, and lets a launcher such as ccache cache the compile.
        nvcc = [*args.nvcc_launcher.split(), args.nvcc, "-c"]
        self.nvcc_ptx = [*nvcc, "-ptx", "-arch=sm_90", "-std=c++17", "-w", "-I", args.include]
        self.nvcc_traced = [*nvcc, "-arch=sm_90a", "-std=c++17", "-I", args.include]

    def command(self, flags, arch):
        """The compile command trace-rewrite parses with (after `--`)."""
        if any(f.startswith("-arch") for f in flags):
            arch = None
        return ["--", self.args.nvcc, "-std=c++17", *([arch] if arch else []), "-I",
                self.args.include, *flags]

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def fail(self, kind, name, detail, files):
        """Records a failure, prints it and saves its files under --keep."""
        keep = self.args.keep / name
        keep.mkdir(parents=True, exist_ok=True)
        for file_name, text in files.items():
            write(keep / file_name, text)
        with self.lock:
            self.failures.append((kind, name))
            print(f"FAIL {kind}: {name} (reproducer: {keep})")
            for file_name, text in files.items():
                print(f"--- {file_name}\n{text.rstrip()}")
            print(detail.rstrip() + "\n", flush=True)

    # One generated case, alone: strip, PTX of both sides, verify-strip, traced + nvcc.

    def strip(self, d, name, text):
        write(d / name, text)
        rc, _, err = run([self.args.rewrite, name, "-o", name + ".stripped"], d)
        stripped = read(d / (name + ".stripped")) if rc == 0 else None
        return rc, stripped, err

    def ptx(self, d, name, text, flags=()):
        src = d / name
        write(src, text)
        rc, out, err = run(self.nvcc_ptx + list(flags) + ["-I", str(d), str(src), "-o",
                                                          str(src) + ".ptx"], d)
        ptx = read(d / (name + ".ptx")) if rc == 0 else None
        return ptx, out + err

    def traced(self, d, name, text, flags=()):
        """(rc, traced text or None, messages); the output and its map go to d/traced/."""
        write(d / name, text)
        out = d / "traced"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        rc, _, err = run([self.args.rewrite, "--traced", name, "-o", str(out / name),
                          *self.command(flags, "-arch=sm_90a")], d)
        if rc != 0:
            return rc, None, err
        return rc, read(out / name), err

    def compile_traced(self, d, name, flags=()):
        out = d / "traced"
        rc, o, e = run(self.nvcc_traced + list(flags) + ["-I", str(out), "-I", str(d),
                                                         str(out / name), "-o", str(out / "t.o")], d)
        return rc == 0, o + e

    def verify(self, d, name, flags=()):
        rc, out, err = run([self.args.rewrite, "--verify-strip", name,
                            *self.command(flags, "-arch=sm_90")], d)
        return rc, out + err

    def check_alone_strip(self, case, d):
        """The PTX check of one case in a file of its own: the failure's evidence."""
        text = INCLUDE_LINE + case.text
        rc, stripped, _ = self.strip(d, "case.cu", text)
        a, _ = self.ptx(d, "annotated.cu", text)
        s, s_msg = self.ptx(d, "stripped.cu", stripped)
        if a is None:
            return None
        if s is None:
            return f"the stripped file does not compile:\n{s_msg}", stripped
        diff = ptx_diff(a, s, "annotated.ptx", "stripped.ptx")
        return ("PTX differs:\n" + "\n".join(diff[:80]), stripped) if diff else None

    # A batch of generated cases.

    def run_batch(self, cases, d):
        d.mkdir(parents=True, exist_ok=True)
        by_index = {c.index: c for c in cases}
        self.count(COUNTS[0], len(cases))
        accepted, refused = set(), set()
        stripped = {}
        for c in cases:
            rc, s, _ = self.strip(d, f"case_{c.index}.cu", INCLUDE_LINE + c.text)
            if rc == 0:
                accepted.add(c.index)
                stripped[c.index] = s
            else:
                refused.add(c.index)

        # Which cases compile with the no-op macros: drop the ones nvcc's errors point into.
        alive = [c.index for c in cases]
        while alive:
            batch = Batch([(i, by_index[i].text) for i in alive], INCLUDE_LINE)
            ptx, msg = self.ptx(d, "all.cu", batch.text)
            if ptx is not None:
                break
            bad = {batch.key_at(l) for l in error_lines(NVCC_ERROR, msg, "all.cu")} - {None}
            if not bad:  # an error outside every case: give up the batch's cases one by one
                bad = {i for i in alive if self.ptx(d, "one.cu", INCLUDE_LINE +
                                                    by_index[i].text)[0] is None}
                bad = bad or set(alive)
            alive = [i for i in alive if i not in bad]
        compiled = set(alive)
        self.count(COUNTS[1], len(cases) - len(compiled))
        self.count(COUNTS[2], len(compiled))
        self.count(COUNTS[3], len(compiled & accepted))
        self.count(COUNTS[4], len(compiled & refused))

        ptx_bad = self.batch_ptx(sorted(compiled & accepted), by_index, stripped, d)
        self.batch_verify(sorted(compiled), by_index, refused, ptx_bad, d)
        self.batch_traced(sorted(compiled), by_index, d)

    def batch_ptx(self, ids, by_index, stripped, d):
        if not ids:
            return set()
        a_batch = Batch([(i, by_index[i].text) for i in ids], INCLUDE_LINE)
        s_batch = Batch([(i, stripped[i]) for i in ids])
        a, _ = self.ptx(d, "annotated.cu", a_batch.text)
        s, s_msg = self.ptx(d, "stripped.cu", s_batch.text)
        if a is not None and s is not None and not ptx_diff(a, s, "a", "s"):
            return set()
        if s is None:
            suspects = {s_batch.key_at(l) for l in error_lines(NVCC_ERROR, s_msg, "stripped.cu")}
        else:
            suspects = set(cases_in_ptx_diff(a, s) or ids)
        suspects = (suspects - {None}) or set(ids)
        bad = set()
        for i in sorted(suspects):
            found = self.check_alone_strip(by_index[i], d / f"alone_{i}")
            if found:
                detail, out = found
                bad.add(i)
                self.count(COUNTS[5])
                self.fail("strip changes the program", f"case_{i}", detail + self.shapes_of(i, by_index),
                          {f"case_{i}.cu": INCLUDE_LINE + by_index[i].text,
                           f"case_{i}.stripped.cu": out})
        if not bad:
            self.count(COUNTS[5], len(ids))
            self.fail("strip changes the program", f"batch_{ids[0]}",
                      "the batch differs, no case alone does", {"annotated.cu": a_batch.text})
        return bad

    def shapes_of(self, i, by_index):
        return f"\nshapes: {', '.join(by_index[i].shapes)} (seed {self.args.seed}, case {i})"

    def batch_verify(self, ids, by_index, refused, ptx_bad, d):
        if not ids:
            return
        batch = Batch([(i, by_index[i].text) for i in ids], INCLUDE_LINE)
        write(d / "verify.cu", batch.text)
        rc, msg = self.verify(d, "verify.cu")
        flagged = {batch.key_at(l) for l in error_lines(CLANG_ERROR, msg, "verify.cu")}
        for i in ids:
            should_refuse = i in refused or i in ptx_bad
            if should_refuse and i not in flagged:
                why = "strip refuses it" if i in refused else "its strip changes the PTX"
                self.count(COUNTS[6])
                self.fail("--verify-strip passes", f"case_{i}",
                          f"--verify-strip reports no error in this case, but {why}; its output "
                          f"on the batch:\n{msg[:3000]}" + self.shapes_of(i, by_index),
                          {f"case_{i}.cu": INCLUDE_LINE + by_index[i].text})

    def batch_traced(self, ids, by_index, d):
        """--traced on the batch; refused cases (located errors) leave it, then nvcc compiles
        what is accepted; a case whose traced output does not compile alone is a failure."""
        alive = list(ids)
        refused = set()
        clean = set()  # cases whose traced output compiles alone
        for _ in range(len(ids) + 1):
            if not alive:
                break
            batch = Batch([(i, by_index[i].text) for i in alive], INCLUDE_LINE)
            rc, traced, msg = self.traced(d, "t.cu", batch.text)
            if rc != 0:
                bad = {batch.key_at(l) for l in error_lines(CLANG_ERROR, msg, "t.cu")} - {None}
                if not bad:
                    bad = {i for i in alive if self.traced(d / f"alone_{i}", "t.cu", INCLUDE_LINE +
                                                           by_index[i].text)[0] != 0}
                    bad = bad or set(alive)
                refused |= bad
                alive = [i for i in alive if i not in bad]
                continue
            ok, nv = self.compile_traced(d, "t.cu")
            if ok:
                self.same_functions(d, batch, traced, by_index)
                break
            # The traced file's #line directives point nvcc's errors at the batch's lines.
            suspects = {batch.key_at(l) for l in error_lines(NVCC_ERROR, nv, "t.cu")} - {None}
            bad = set()
            for i in sorted(suspects - clean) + sorted(set(alive) - suspects - clean):
                if bad and i not in suspects:
                    break  # the others are checked again with the smaller batch
                a = d / f"alone_{i}"
                a.mkdir(exist_ok=True)
                rc1, out1, _ = self.traced(a, "t.cu", INCLUDE_LINE + by_index[i].text)
                if rc1 != 0:
                    continue
                ok1, nv1 = self.compile_traced(a, "t.cu")
                if ok1:
                    clean.add(i)
                else:
                    bad.add(i)
                    self.count(COUNTS[9])
                    self.fail("--traced output does not compile", f"case_{i}",
                              "nvcc:\n" + nv1[:4000] + self.shapes_of(i, by_index),
                              {f"case_{i}.cu": INCLUDE_LINE + by_index[i].text,
                               f"case_{i}.traced.cu": out1})
            if not bad:
                self.count(COUNTS[9])
                self.fail("--traced output does not compile", f"batch_{alive[0]}",
                          "the traced batch does not compile; no case alone fails:\n" + nv[:4000],
                          {"batch.cu": batch.text, "batch.traced.cu": traced})
                bad = set(alive)
            alive = [i for i in alive if i not in bad]
        self.count(COUNTS[7], len(ids) - len(refused))
        self.count(COUNTS[8], len(refused))

    def same_functions(self, d, batch, traced, by_index):
        """Every function of the annotated batch's PTX has the same PTX in the traced output."""
        # Both compiled as `t.cu` from d, so that __FILE__ reads the same name on both sides
        # (the traced file's #line directives name its source as given to trace-rewrite).
        out = d / "traced"
        p_rc, _, _ = run(self.nvcc_ptx + ["t.cu", "-o", "plain.ptx"], d)
        t_rc, _, _ = run(self.nvcc_ptx + ["-I", str(out), "-I", str(d), "traced/t.cu", "-o",
                                          "traced/t.ptx"], d)
        if p_rc != 0 or t_rc != 0:
            return  # compiled above for sm_90a only: nothing to compare at sm_90
        theirs = ptx_functions(read(out / "t.ptx"))
        for name, lines in sorted(ptx_functions(read(d / "plain.ptx")).items()):
            if theirs.get(name) == lines:
                continue
            self.count(COUNTS[10])
            m = NAMESPACE_RE.search(name)
            case = int(m.group(1)) if m else None
            where = f"case_{case}" if case is not None else f"batch_{batch.starts[0][1]}"
            diff = "\n".join(difflib.unified_diff(lines, theirs.get(name, []), "plain", "traced",
                                                  lineterm="", n=2))
            self.fail("the traced build changes a function", f"{where}_{name[:40]}",
                      f"{name} (in {where}, or moved by an earlier case of its batch):\n"
                      f"{diff[:4000]}" + (self.shapes_of(case, by_index) if case is not None else ""),
                      {"batch.cu": batch.text, "batch.traced.cu": traced})

    # The repository's annotated files, one by one (their own headers, flags and globals).

    def run_corpus_file(self, src, d):
        d.mkdir(parents=True, exist_ok=True)
        text = read(src)
        flags = ["-I", str(src.parent)] + corpus_flags(src, text)
        name = src.name
        self.count(COUNTS[0])
        # Both sides have the file's name (in folders of their own): anonymous namespaces and
        # static names in the PTX are spelled with it.
        a, msg = self.ptx(d / "annotated", name, text, flags)
        if a is None:
            flags.append("-arch=sm_90a")  # an sm_90a program (wgmma, setmaxnreg)
            a, msg = self.ptx(d / "annotated", name, text, flags)
        if a is None:
            self.count(COUNTS[1])
            return
        self.count(COUNTS[2])
        rc, stripped, _ = run_strip(self.args.rewrite, src, d / ("stripped_" + name))
        v_rc = self.verify(d, str(src), flags)[0]
        if rc != 0:
            self.count(COUNTS[4])
            if v_rc == 0:
                self.count(COUNTS[6])
                self.fail("--verify-strip passes", name, "strip refuses this file, "
                          "--verify-strip passes it", {name: text})
        else:
            self.count(COUNTS[3])
            s, s_msg = self.ptx(d / "stripped", name, stripped, flags)
            diff = ptx_diff(a, s, "annotated.ptx", "stripped.ptx") if s is not None else None
            if s is None or diff:
                self.count(COUNTS[5])
                detail = ("the stripped file does not compile:\n" + s_msg if s is None else
                          "PTX differs:\n" + "\n".join(diff[:80]))
                if v_rc == 0:
                    self.count(COUNTS[6])
                    detail += "\n--verify-strip passes it"
                self.fail("strip changes the program", name, detail,
                          {name: text, "stripped_" + name: stripped})
        out = d / "traced"
        out.mkdir(exist_ok=True)
        t_flags = [f for f in flags if not f.startswith("-arch")]
        rc, _, _ = run([self.args.rewrite, "--traced", str(src), "-o", str(out / name),
                        *self.command(t_flags, "-arch=sm_90a")])
        if rc != 0:
            self.count(COUNTS[8])
            return
        self.count(COUNTS[7])
        ok, nv = self.compile_traced(d, name, t_flags)
        if not ok:
            self.count(COUNTS[9])
            self.fail("--traced output does not compile", name, "nvcc:\n" + nv[:4000],
                      {name: text, name + ".traced.cu": read(out / name)})


def run_strip(rewrite, src, dst):
    rc, _, err = run([rewrite, str(src), "-o", str(dst)])
    return rc, read(dst) if rc == 0 else None, err


def corpus_flags(src, text):
    """The file's `// cutrace-test-flags:` line, and the include path of examples/multifile."""
    flags = []
    first = text.split("\n", 1)[0]
    if first.startswith("// cutrace-test-flags:"):
        flags += [f for f in first.split(":", 1)[1].split() if f != "-std=c++17"]
    if (src.parent / "third_party").is_dir():
        flags += ["-isystem", str(src.parent / "third_party")]
    return flags


def corpus_files(root):
    files = [p for d in ("test/inputs/strip", "test/inputs/traced") for p in (root / d).glob("*.cu")
             if not p.name.endswith((".plain.cu", ".traced.cu"))]
    files += list((root / "examples").glob("*/*.cu"))
    return sorted(files)


def main():
    here = Path(__file__).resolve().parent
    root = here.parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rewrite", required=True, help="trace-rewrite binary")
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    ap.add_argument("--nvcc-launcher", default="",
                    help="command put before nvcc's compiles, e.g. ccache (the cases are seeded: "
                         "the same sources from run to run)")
    ap.add_argument("--include", default=str(root / "runtime" / "include"))
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=100, help="generated cases")
    ap.add_argument("--first", type=int, default=0, help="index of the first case")
    ap.add_argument("--batch", type=int, default=40, help="cases per translation unit")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--corpus", type=int, default=0,
                    help="corpus files to check as well, chosen by the seed (-1: all)")
    ap.add_argument("--skip-known-open", action="store_true",
                    help="leave out the shapes of shapes.KNOWN_OPEN (bugs known and not yet fixed)")
    ap.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    ap.add_argument("--keep", type=Path, help="folder for failing inputs (default WORK/failures)")
    args = ap.parse_args()
    args.rewrite = str(Path(args.rewrite).resolve())
    if shutil.which(args.nvcc) is None:
        print(f"skipped: no nvcc at {args.nvcc}", file=sys.stderr)
        return 77
    work = (args.work or Path(tempfile.mkdtemp(prefix="cutrace-oracle."))).resolve()
    shutil.rmtree(work / "b", ignore_errors=True)
    args.keep = (args.keep or work / "failures").resolve()
    skip = set(shapes.KNOWN_OPEN) if args.skip_known_open else set()
    for name in sorted(skip):
        print(f"left out (--skip-known-open): {name}: {shapes.KNOWN_OPEN[name]}")

    oracle = Oracle(args)
    cases = [shapes.make_case(args.seed, i, skip) for i in range(args.first, args.first + args.count)]
    jobs = [(oracle.run_batch, cases[b:b + args.batch], work / "b" / f"batch_{b}")
            for b in range(0, len(cases), args.batch)]
    files = corpus_files(root)
    if args.corpus >= 0:
        files = sorted(random.Random(args.seed).sample(files, min(args.corpus, len(files))))
    jobs += [(oracle.run_corpus_file, f, work / "b" / "corpus" / f"{k}_{f.stem}")
             for k, f in enumerate(files)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for future in [pool.submit(*job) for job in jobs]:
            future.result()

    print(f"seed {args.seed}, cases {args.first}..{args.first + args.count - 1} in batches of "
          f"{args.batch}, {len(files)} corpus files:")
    for key in COUNTS:
        print(f"  {key}: {oracle.counts[key]}")
    if not args.work:
        shutil.rmtree(work / "b", ignore_errors=True)
    if oracle.failures:
        print(f"{len(oracle.failures)} failures; inputs saved in {args.keep}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
