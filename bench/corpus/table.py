#!/usr/bin/env python3
"""Turns the corpus TSVs (run.sh's results.tsv, compile.sh's compile.tsv) into docs/corpus.md.

usage: table.py RESULTS.tsv [COMPILE.tsv] -o docs/corpus.md [--title TEXT] [--note TEXT]...
"""
import argparse
import csv
import re
import statistics
import sys

# Failure classes: the first pattern that matches a failure's reason names its class.
CLASSES = [
    ("device-side launch (dynamic parallelism) given the host-only cutrace::launch",
     r'calling a __host__ function\("cutrace::launch'),
    ("device-side launch: the parse lacks -fgpu-rdc (nvcc's -rdc=true is dropped)",
     r"reference to __global__ function .* in __global__ function"),
    ("kernel passed as a value to a launch helper that calls cudaLaunchKernelEx: "
     "one argument short of the slots parameter",
     r'cuda_runtime\.h\(\d+\): error: function "lambda'),
    ("kernel used as a value: its pointer type changed by the slots parameter",
     r"argument of type .*cutrace::Slots|cutrace::Slots \*\).*incompatible|"
     r"no instance of function template .* matches|a value of type .*Slots"),
    ("raw TRACE_* left in an inactive #if branch", r"TRACE_(GROUP|RANGE|RECORD)"),
    ("overloaded kernel after rewrite", r"more than one instance of overloaded function"),
    ("Clang rejects code in an annotated kernel that nvcc accepts (CUDA 13 header gap)",
     r"error: .*\[(host|device) pass\]"),
    ("Clang cannot parse the file", r"could not be parsed|cannot parse"),
]


def classify(reason):
    for name, pattern in CLASSES:
        if re.search(pattern, reason):
            return name
    # Unknown: the message without paths, line numbers and quoted names.
    text = re.sub(r"^\S+?(\(\d+\)|:\d+(:\d+)?):\s*", "", reason)
    return re.sub(r'"[^"]*"|\'[^\']*\'', "'…'", text)[:120]


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def ratio(num, den):
    return num / den if den > 0 else None


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("compile", nargs="?")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="The public corpus, measured")
    ap.add_argument("--note", action="append", default=[])
    args = ap.parse_args()

    rows = read_tsv(args.results)
    compiled = {r["file"]: r for r in read_tsv(args.compile)} if args.compile else {}
    n = len(rows)

    def count(key, value="pass", subset=None):
        return sum(1 for r in (subset or rows) if r[key] == value)

    for r in rows:
        c = compiled.get(r["file"])
        r["compile"] = c["traced_compile"] if c else "not run"
        r["compile_reason"] = c["reason"] if c else ""
        r["compile_s"] = c["seconds"] if c else ""
        steps = [("annotate", r["annotate_reason"]), ("strip", r["strip_reason"]),
                 ("verify", r["verify_reason"]), ("traced", r["traced_reason"]),
                 ("compile", r["compile_reason"])]
        r["failed_step"], r["reason"] = next(
            ((s, why) for s, why in steps if r[s] == "fail"), ("", ""))

    lines = [f"# {args.title}", ""]
    lines += args.note and [*args.note, ""] or []
    lines += [
        "Every kernel of every file is annotated automatically by `bench/corpus/annotate.py` "
        "(`TRACE_GROUP(\"k\", 0);` and `TRACE_RANGE(\"body\");` at the top of each kernel body, "
        "`TRACE_RECORD(\"iter\");` first in each braced loop body); then per file: strip of the "
        "annotated file compared byte for byte with the original, `--verify-strip --against` the "
        "original, `--traced` (timed), and nvcc -c of the traced output for sm_90 "
        "(`compile.sh`). Files, commits and flags: `bench/corpus/files.txt`, "
        "`bench/corpus/flags.sh`; how to rerun: `bench/corpus/README.md`.",
        "",
        "## Totals",
        "",
        "| project | files | kernels found | kernels annotated | strip identical | "
        "--verify-strip | traced rewrite | traced compiles (nvcc sm_90) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for project in ["cuda-samples", "ggml", None]:
        subset = [r for r in rows if project is None or r["file"].startswith(project + "/")]
        if not subset:
            continue
        m = len(subset)
        kernels = sum(int(r["kernels"] or 0) for r in subset)
        annotated = sum(int(r["annotated"] or 0) for r in subset)
        not_run = count("compile", "not run", subset)
        comp = f"{count('compile', subset=subset)}/{m}" + (f" ({not_run} not run)" if not_run else "")
        lines.append(f"| {project or '**all**'} | {m} | {kernels} | {annotated} | "
                     f"{count('strip', subset=subset)}/{m} | {count('verify', subset=subset)}/{m} | "
                     f"{count('traced', subset=subset)}/{m} | {comp} |")

    failures = {}
    for r in rows:
        if r["failed_step"]:
            key = (r["failed_step"], classify(r["reason"]))
            failures.setdefault(key, []).append(r["file"])
    lines += ["", "## Failure classes", "",
              "Each file counts once, under its first failing step.", ""]
    if failures:
        lines += ["| step | class | files | examples |", "|---|---|---|---|"]
        for (step, name), files in sorted(failures.items(), key=lambda kv: -len(kv[1])):
            examples = ", ".join(f.rsplit("/", 1)[-1] for f in files[:4])
            lines.append(f"| {step} | {cell(name)} | {len(files)} | {cell(examples)} |")
    else:
        lines.append("None.")

    traced_vs_clang, traced_vs_nvcc = [], []
    for r in rows:
        if r["traced"] != "pass":
            continue
        t = float(r["traced_s"])
        q = ratio(t, float(r["clang_host_s"]) + float(r["clang_device_s"]))
        if q is not None:
            traced_vs_clang.append(q)
        q = ratio(t, float(r["nvcc_s"] or 0))
        if q is not None:
            traced_vs_nvcc.append(q)
    lines += ["", "## Rewrite time", "",
              "CPU seconds (user + sys, so other load on the machine counts little), one run per "
              "file, over the files whose traced rewrite succeeded. Targets: traced rewrite ≤ 1.2× "
              "the two Clang parses it needs (host + sm_90 device, plain `clang++-19 -fsyntax-only` "
              "with the tool's compat flags) and ≤ 0.5× `nvcc -c` of the original for sm_90.", "",
              "| ratio | files | median | min | max |", "|---|---|---|---|---|"]
    for name, values in [("traced rewrite / Clang parses (host + device)", traced_vs_clang),
                         ("traced rewrite / nvcc -c of the original", traced_vs_nvcc)]:
        if values:
            lines.append(f"| {name} | {len(values)} | {statistics.median(values):.2f}× | "
                         f"{min(values):.2f}× | {max(values):.2f}× |")

    lines += ["", "## Per file", "",
              "kernels: `__global__` definitions found / annotated (declarations are not counted); "
              "loops: braced loops annotated (+ brace-less or lambda loops skipped); times in CPU "
              "seconds.", "",
              "| file | kernels | loops | strip | verify | traced | compile | rewrite s | "
              "Clang s | nvcc s | first failure |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        clang = float(r["clang_host_s"] or 0) + float(r["clang_device_s"] or 0)
        loops = r["loops"] + (f" (+{r['loops_skipped']})" if r["loops_skipped"] not in ("", "0") else "")
        reason = f"{r['failed_step']}: {r['reason']}" if r["failed_step"] else ""
        lines.append(f"| {r['file']} | {r['annotated']}/{r['kernels']} | {loops} | {r['strip']} | "
                     f"{r['verify']} | {r['traced']} | {r['compile']} | {r['traced_s']} | "
                     f"{clang:.2f} | {r['nvcc_s']} | {cell(reason)} |")
    # The section auto_table.py writes stays, last.
    try:
        with open(args.output) as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    kept = old.find("## With `--auto`")
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n" + ("\n" + old[kept:] if kept >= 0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
