#!/usr/bin/env python3
"""Holds bench/results/ to the rule of bench/README.md, "Results folders".

Reads the budget table from bench/README.md (the rule as written is the rule checked) and checks:
  - every entry of bench/results/ is a folder named YYYY-MM-DD-name holding a README.md;
  - each folder stays within its budget of files and bytes (the default row, or its own row);
  - no file is larger than the per-file limit, and none is of a kind the rule excludes;
  - every path under bench/results/ that a tracked text file outside bench/results/ names exists
    (braces and * expanded; a pattern must match at least one file), and so does every path a
    Markdown file names in backquotes relative to the results folder it named last
    (`run2/sass/x.sass` after `bench/results/2026-12-02-compact/`), when the path's first part
    is a folder or file of that results folder.
Prints one line per violation and exits 1 if there is any; prints a one-line summary otherwise.

Usage: check_results.py [REPO_ROOT]   (default: the checkout holding this script)
"""
import fnmatch
import os
import re
import subprocess
import sys

FOLDER_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}-[a-z0-9][a-z0-9-]*$")
BUDGET_ROW = re.compile(r"^\|\s*`?([\w-]+)`?\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|")
PER_FILE_ROW = re.compile(r"^Per file:\s*at most (\d+) KB\b")
EXCLUDED_ROW = re.compile(r"^Never kept:\s*(.+)$")
CITED = re.compile(r"bench/results/[\w.{},*/-]+")
FOLDER_OR_RELATIVE = re.compile(r"bench/results/([\w-]+)/|`([^`\s/$<.][^`\s]*/[^`\s]*)`")
TEXT_SUFFIXES = (".md", ".txt", ".py", ".sh", ".cpp", ".h", ".cu", ".cmake", ".html", ".js")


def read_rule(readme):
    """Returns ({folder or 'default': (files, kb)}, per_file_kb, [excluded patterns])."""
    budgets, per_file_kb, excluded = {}, None, []
    in_section = False
    for line in open(readme, encoding="utf-8"):
        if line.startswith("## "):
            in_section = line.strip() == "## Results folders"
            continue
        if not in_section:
            continue
        row = BUDGET_ROW.match(line)
        if row:
            budgets[row.group(1)] = (int(row.group(2)), int(row.group(3)))
        per_file = PER_FILE_ROW.match(line)
        if per_file:
            per_file_kb = int(per_file.group(1))
        never = EXCLUDED_ROW.match(line)
        if never:
            excluded = re.findall(r"`([^`]+)`", never.group(1))
    if "default" not in budgets or per_file_kb is None or not excluded:
        raise SystemExit(f"{readme}: section 'Results folders' lacks the default budget row, "
                         "the 'Per file:' line or the 'Never kept:' line")
    return budgets, per_file_kb, excluded


def expand_braces(pattern):
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    out = []
    for alternative in match.group(1).split(","):
        out += expand_braces(pattern[:match.start()] + alternative + pattern[match.end():])
    return out


def files_under(folder):
    for parent, _, names in os.walk(folder):
        for name in names:
            yield os.path.join(parent, name)


def check_folders(root, budgets, per_file_kb, excluded):
    problems, folders = [], 0
    results = os.path.join(root, "bench", "results")
    for entry in sorted(os.listdir(results)):
        path = os.path.join(results, entry)
        where = f"bench/results/{entry}"
        if not os.path.isdir(path):
            problems.append(f"{where}: a file directly under bench/results/ (put it in a folder)")
            continue
        folders += 1
        if not FOLDER_NAME.match(entry):
            problems.append(f"{where}: folder name is not YYYY-MM-DD-name")
        if not os.path.isfile(os.path.join(path, "README.md")):
            problems.append(f"{where}: no README.md")
        max_files, max_kb = budgets.get(entry, budgets["default"])
        files = list(files_under(path))
        total = sum(os.path.getsize(f) for f in files)
        if len(files) > max_files:
            problems.append(f"{where}: {len(files)} files, budget {max_files}")
        if total > max_kb * 1024:
            problems.append(f"{where}: {total} bytes, budget {max_kb} KB")
        for f in files:
            rel = os.path.relpath(f, root)
            if os.path.getsize(f) > per_file_kb * 1024:
                problems.append(f"{rel}: {os.path.getsize(f)} bytes, over {per_file_kb} KB a file")
            if any(fnmatch.fnmatch(os.path.basename(f), pattern) for pattern in excluded):
                problems.append(f"{rel}: a kind of file results folders never keep")
    for name in budgets:
        if name != "default" and not os.path.isdir(os.path.join(results, name)):
            problems.append(f"bench/README.md: budget row for {name}, which does not exist")
    return problems, folders


def check_citations(root):
    problems = []
    listed = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if listed.returncode != 0:
        return [f"git ls-files failed in {root}: {listed.stderr.strip()}"]
    results = [f for f in listed.stdout.split("\n") if f.startswith("bench/results/")]
    existing = set(results)
    existing_dirs = {os.path.dirname(f) for f in results}
    for parent in list(existing_dirs):
        while parent:
            existing_dirs.add(parent)
            parent = os.path.dirname(parent)
    for source in listed.stdout.split("\n"):
        if not source.endswith(TEXT_SUFFIXES) or source.startswith("bench/results/"):
            continue
        if source == "scripts/check_results.py":
            continue
        try:
            text = open(os.path.join(root, source), encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        cited = {c.rstrip(".,") for c in CITED.findall(text)}
        if source.endswith(".md"):
            cited |= relative_citations(text, existing_dirs | existing)
        for pattern in sorted(p for c in cited for p in expand_braces(c)):
            pattern = pattern.rstrip("/")
            if "*" in pattern:
                found = any(fnmatch.fnmatch(f, pattern) for f in existing)
            else:
                found = pattern in existing or pattern in existing_dirs
            if not found:
                problems.append(f"{source}: names {pattern}, which is not in the checkout")
    return problems


def relative_citations(text, existing):
    """Paths a Markdown text names relative to the results folder it named last."""
    cited, folder = set(), None
    for match in FOLDER_OR_RELATIVE.finditer(text):
        relative = match.group(2)
        named = match.group(1) or (relative.startswith("bench/results/") and relative.split("/")[2])
        if named:
            folder = "bench/results/" + named
            continue
        if folder and f"{folder}/{relative.split('/')[0]}" in existing:
            cited.add(f"{folder}/{relative}")
    return cited


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    budgets, per_file_kb, excluded = read_rule(os.path.join(root, "bench", "README.md"))
    problems, folders = check_folders(root, budgets, per_file_kb, excluded)
    problems += check_citations(root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"bench/results: {folders} folders within their budgets; every cited path exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
