#!/usr/bin/env python3
"""Holds the rewriter's stage folders to one include direction (docs/design.md, "The folders and
stages").

rewriter/ is laid out as pipeline stages, lowest first in STAGES below; tool/trace-rewrite/ sits
above them all. A file may include only files of its own stage and of the stages below it. The
check reads every .h, .cpp and .in file of those folders, resolves each `#include "..."` as the
build does (the including file's folder, then rewriter/, then the folders that
rewriter/CMakeLists.txt adds with target_include_directories; an include that reaches none of
them, such as "llvm/...", is not the project's and is skipped) and reports:
  - every include from a lower stage to a higher one, as
      rewriter/model/X.cpp:12: includes rewriter/traced/Y.h (model may include only: ...);
  - every file under rewriter/ outside the stage folders: a new folder needs its place in STAGES;
  - as warnings, files longer than --max-lines (errors with --strict-lines).
Prints one line per problem and a one-line summary; exits 1 if there is any error.

Usage: check_stages.py [--graph] [--max-lines N] [--strict-lines] [REPO_ROOT]
       check_stages.py --self-test
  --graph      also print the stage graph: include counts between stages, files and lines per stage
  REPO_ROOT    default: the checkout holding this script
"""
import argparse
import os
import re
import sys
import tempfile
from collections import Counter

# The stage order, lowest first: a stage may include itself and the stages before it. To add a
# folder under rewriter/, give it its place here. Why this order (read from the includes):
#   compat    the Clang-vs-CUDA support layer; includes no other stage, so every stage may use it
#   lex       raw tokens, annotations, edits
#   model     the Clang pass's SourceModel, over lex
#   strip     deletions and the rules (Verify), over the model
#   traced    the --traced planner; uses strip's results
#   auto      the --auto planner: plans its kernels with the traced planner's types (TracedPlan,
#             TracedOptions, twins), so it sits above traced
#   pipeline  read, check, emit, write: drives the stages above
#   report    --explain, reads the pipeline's results and is never read by it
#   tool      tool/trace-rewrite/, the command line over all of them
STAGES = [
    ("compat", "rewriter/compat"),
    ("lex", "rewriter/lex"),
    ("model", "rewriter/model"),
    ("strip", "rewriter/strip"),
    ("traced", "rewriter/traced"),
    ("auto", "rewriter/auto"),
    ("pipeline", "rewriter/pipeline"),
    ("report", "rewriter/report"),
    ("tool", "tool/trace-rewrite"),
]
REWRITER = "rewriter"
CMAKE_LISTS = "rewriter/CMakeLists.txt"
ROOT_FILES = {CMAKE_LISTS}  # files of rewriter/ itself that belong to no stage
SOURCE_SUFFIXES = (".h", ".cpp", ".in")
DEFAULT_MAX_LINES = 600

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
INCLUDE_DIRS = re.compile(r"target_include_directories\s*\(([^)]*)\)", re.S)
CMAKE_DIR = re.compile(r"^\$\{(CMAKE_CURRENT_SOURCE_DIR|PROJECT_SOURCE_DIR)\}(/.*)?$")


# --- Where files are ---------------------------------------------------------------------------

def stage_rank():
    """{stage name: its place in STAGES}."""
    return {name: rank for rank, (name, _) in enumerate(STAGES)}


def stage_of(path):
    """The stage holding a repository-relative path; None when no stage folder holds it."""
    for name, folder in STAGES:
        if path.startswith(folder + "/"):
            return name
    return None


def allowed_stages(stage):
    """The stages a file of `stage` may include, in stage order."""
    rank = stage_rank()[stage]
    return [name for name, _ in STAGES[:rank + 1]]


def files_under(root, folder):
    """Repository-relative paths of every file under root/folder, sorted."""
    found = []
    for here, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        for name in sorted(files):
            found.append(os.path.relpath(os.path.join(here, name), root).replace(os.sep, "/"))
    return found


def scanned_files(root):
    """The .h, .cpp and .in files the check reads: all of rewriter/ and each stage folder."""
    folders = [REWRITER] + [folder for _, folder in STAGES if not folder.startswith(REWRITER + "/")]
    return [path for folder in folders for path in files_under(root, folder)
            if path.endswith(SOURCE_SUFFIXES)]


def unknown_files(root):
    """Files under rewriter/ that no stage folder holds (rewriter/CMakeLists.txt aside)."""
    return [path for path in files_under(root, REWRITER)
            if stage_of(path) is None and path not in ROOT_FILES]


# --- Resolving includes ------------------------------------------------------------------------

def cmake_include_dirs(root):
    """The non-SYSTEM folders rewriter/CMakeLists.txt adds with target_include_directories."""
    path = os.path.join(root, CMAKE_LISTS)
    if not os.path.exists(path):
        return []
    text = open(path, encoding="utf-8").read()
    dirs = []
    for call in INCLUDE_DIRS.finditer(text):
        words = call.group(1).split()
        if "SYSTEM" in words:
            continue
        for word in words:
            dirs += cmake_dir(word)
    return dirs


def cmake_dir(word):
    """[the repository-relative folder a CMake path word names], or [] when it names none."""
    match = CMAKE_DIR.match(word)
    if not match:
        return []
    base = REWRITER if match.group(1) == "CMAKE_CURRENT_SOURCE_DIR" else ""
    return [os.path.normpath(os.path.join(base, (match.group(2) or "").lstrip("/")))]


def resolve(root, including, target, dirs):
    """The repository file an `#include "target"` in `including` reaches, or None."""
    for folder in [os.path.dirname(including), REWRITER] + dirs:
        candidate = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/")
        if candidate.startswith("../"):
            continue
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def read_lines(root, path):
    return open(os.path.join(root, path), encoding="utf-8", errors="replace").read().splitlines()


# --- The scan ----------------------------------------------------------------------------------

class Scan:
    """What the tree holds: files with their line counts, and resolved includes (arrows)."""

    def __init__(self):
        self.lines = {}   # path -> number of lines
        self.arrows = []  # (path, line number, included path)


def scan_tree(root):
    """Reads every scanned file and resolves its quoted includes to repository files."""
    scan, dirs = Scan(), cmake_include_dirs(root)
    for path in scanned_files(root):
        lines = read_lines(root, path)
        scan.lines[path] = len(lines)
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            included = match and resolve(root, path, match.group(1), dirs)
            if included:
                scan.arrows.append((path, number, included))
    return scan


def stage_pairs(scan):
    """Counter of (from stage, to stage) over the arrows whose both ends lie in stages."""
    pairs = Counter()
    for path, _, included in scan.arrows:
        source, target = stage_of(path), stage_of(included)
        if source and target:
            pairs[(source, target)] += 1
    return pairs


# --- The rules ---------------------------------------------------------------------------------

def upward_arrows(scan):
    """One message per include from a lower stage to a higher one."""
    rank, problems = stage_rank(), []
    for path, number, included in scan.arrows:
        source, target = stage_of(path), stage_of(included)
        if source and target and rank[target] > rank[source]:
            allowed = ", ".join(allowed_stages(source))
            problems.append(f"{path}:{number}: includes {included} "
                            f"({source} may include only: {allowed})")
    return problems


def unknown_folder_problems(root):
    """One message per file under rewriter/ outside the stage folders."""
    return [f"{path}: in no stage folder; give its folder a place in STAGES "
            f"(scripts/check_stages.py) or move the file into a stage" for path in unknown_files(root)]


def long_files(scan, max_lines):
    return [f"{path}: {count} lines, over {max_lines}"
            for path, count in sorted(scan.lines.items()) if count > max_lines]


def find_problems(root, max_lines=DEFAULT_MAX_LINES, strict_lines=False):
    """(errors, warnings, scan) for the tree at root."""
    scan = scan_tree(root)
    errors = upward_arrows(scan) + unknown_folder_problems(root)
    too_long = long_files(scan, max_lines)
    if strict_lines:
        return errors + too_long, [], scan
    return errors, too_long, scan


# --- Output ------------------------------------------------------------------------------------

def summary(scan, errors):
    between = sum(count for (a, b), count in stage_pairs(scan).items() if a != b)
    verdict = f"{len(errors)} problems" if errors else "every include points down"
    return (f"rewriter stages: {len(scan.lines)} files, {len(scan.arrows)} includes, "
            f"{between} between stages; {verdict}")


def print_graph(scan):
    """Include counts between stages (highest stage first), then files and lines per stage."""
    rank, pairs = stage_rank(), stage_pairs(scan)
    order = sorted(pairs, key=lambda pair: (-rank[pair[0]], -rank[pair[1]]))
    for source, target in order:
        if source != target:
            upward = "  UPWARD" if rank[target] > rank[source] else ""
            print(f"{source} -> {target} {pairs[(source, target)]}{upward}")
    print()
    for name, folder in STAGES:
        counts = [count for path, count in scan.lines.items() if stage_of(path) == name]
        print(f"{name:<9} {folder + '/':<21} {len(counts):>3} files {sum(counts):>6} lines"
              f" {pairs[(name, name)]:>4} includes within")
    print()


# --- Self-test ---------------------------------------------------------------------------------

SELF_TEST_TREE = {
    CMAKE_LISTS: "target_include_directories(lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})\n"
                 "target_include_directories(lib SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})\n",
    "rewriter/lex/Low.h": "#pragma once\n",
    "rewriter/model/Mid.h": '#include "lex/Low.h"\n#include "llvm/ADT/StringRef.h"\n',
    "rewriter/model/Mid.cpp": '#include "Mid.h"\n/// `#include "traced/Top.h"` in a comment\n',
    "rewriter/traced/Top.h": '#include "model/Mid.h"\n#include "compat/Any.h"\n',
    "rewriter/compat/Any.h": "#pragma once\n",
    "rewriter/report/explain.css": "body {}\n",
    "tool/trace-rewrite/main.cpp": '#include "traced/Top.h"\n',
    # The two faults: an include upward (line 2), a folder with no place in STAGES.
    "rewriter/lex/Bad.cpp": '#include "Low.h"\n#include "model/Mid.h"\n',
    "rewriter/newstage/New.cpp": '#include "lex/Low.h"\n',
}
SELF_TEST_EXPECTED = [
    "rewriter/lex/Bad.cpp:2: includes rewriter/model/Mid.h (lex may include only: compat, lex)",
    "rewriter/newstage/New.cpp: in no stage folder; give its folder a place in STAGES "
    "(scripts/check_stages.py) or move the file into a stage",
]


def write_tree(root, tree):
    for path, text in tree.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as out:
            out.write(text)


def self_test():
    """Checks a small tree with one bad include and one unknown folder, then the tree without
    them; returns the failures as messages."""
    failures = []
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, SELF_TEST_TREE)
        errors, warnings, scan = find_problems(root, max_lines=1)
        if errors != SELF_TEST_EXPECTED:
            failures.append(f"flagged {errors}, expected {SELF_TEST_EXPECTED}")
        if len(scan.arrows) != 8:
            failures.append(f"resolved {len(scan.arrows)} includes, expected 8: {scan.arrows}")
        if warnings != ["rewriter/lex/Bad.cpp: 2 lines, over 1",
                        "rewriter/model/Mid.cpp: 2 lines, over 1",
                        "rewriter/model/Mid.h: 2 lines, over 1",
                        "rewriter/traced/Top.h: 2 lines, over 1"]:
            failures.append(f"--max-lines 1 warned {warnings}")
        os.remove(os.path.join(root, "rewriter/lex/Bad.cpp"))
        os.remove(os.path.join(root, "rewriter/newstage/New.cpp"))
        errors, _, _ = find_problems(root)
        if errors:
            failures.append(f"the good tree was flagged: {errors}")
    return failures


# --- Main --------------------------------------------------------------------------------------

def parse_arguments():
    parser = argparse.ArgumentParser(description="Checks that rewriter/ stages include only "
                                                 "themselves and the stages below them.")
    parser.add_argument("root", nargs="?", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))), help="repository root")
    parser.add_argument("--graph", action="store_true",
                        help="print include counts between stages and files and lines per stage")
    parser.add_argument("--max-lines", type=int, default=DEFAULT_MAX_LINES,
                        help="warn about files longer than this (default %(default)s)")
    parser.add_argument("--strict-lines", action="store_true",
                        help="files over --max-lines are errors, not warnings")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on a small temporary tree")
    return parser.parse_args()


def main():
    args = parse_arguments()
    if args.self_test:
        failures = self_test()
        for failure in failures:
            print(f"check_stages self-test: {failure}")
        print("check_stages self-test: " + ("FAILED" if failures else "passed"))
        return 1 if failures else 0
    if not os.path.isdir(os.path.join(args.root, REWRITER)):
        raise SystemExit(f"{args.root}: no {REWRITER}/ folder here")
    errors, warnings, scan = find_problems(args.root, args.max_lines, args.strict_lines)
    if args.graph:
        print_graph(scan)
    for warning in warnings:
        print(f"warning: {warning}")
    for error in errors:
        print(error)
    print(summary(scan, errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
