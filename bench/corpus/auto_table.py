#!/usr/bin/env python3
"""bench/corpus/auto.sh's auto.tsv -> the section "With --auto" of docs/corpus.md (replaced in
place, or appended; it stays the file's last section, which table.py keeps when it rewrites the
rest).

usage: auto_table.py AUTO.tsv -o docs/corpus.md [--note TEXT]...
"""
import argparse
import csv
import statistics

HEADING = "## With `--auto`"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--note", action="append", default=[])
    args = ap.parse_args()
    with open(args.tsv, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    lines = [HEADING, "",
             "Every file as its authors wrote it, no annotation added, rewritten by "
             "`trace-rewrite --traced --auto` (every kernel of the file gets a twin recording a "
             "row per CTA: docs/auto.md) and the traced output compiled by nvcc for sm_90 with "
             "the project's flags (`bench/corpus/auto.sh`). Rewrite and compile times are CPU "
             "seconds (user + sys), one run per file."]
    lines += [""] + args.note + ([""] if args.note else [])
    lines += ["| project | files | kernels traced | loops with iteration ranges | rewritten | "
              "compile (nvcc sm_90) | rewrite s median (max) | compile s median (max) |",
              "|---|---|---|---|---|---|---|---|"]
    projects = [("cuda-samples", "cuda-samples/"), ("ggml", "ggml/"), ("**all**", "")]
    for name, prefix in projects:
        mine = [r for r in rows if r["file"].startswith(prefix)]
        rewrite_s = [float(r["rewrite_s"]) for r in mine if r["rewrite"] == "pass"]
        compile_s = [float(r["compile_s"]) for r in mine if r["compile"] == "pass"]
        med = lambda v: f"{statistics.median(v):.2f} ({max(v):.2f})" if v else "-"
        lines.append(
            f"| {name} | {len(mine)} | {sum(int(r['kernels']) for r in mine)} | "
            f"{sum(int(r['loops']) for r in mine)} | "
            f"{sum(r['rewrite'] == 'pass' for r in mine)}/{len(mine)} | "
            f"{sum(r['compile'] == 'pass' for r in mine)}/{len(mine)} | {med(rewrite_s)} | "
            f"{med(compile_s)} |")
    failed = [r for r in rows if r["rewrite"] != "pass" or r["compile"] != "pass"]
    lines += ["", "Failures: " + ("none." if not failed else "")]
    for r in failed:
        lines.append(f"- `{r['file']}`: rewrite {r['rewrite']}, compile {r['compile']}: "
                     f"{r['reason']}")
    lines += ["", "| file | kernels | loops | rewrite | rewrite s | compile | compile s |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['file']}` | {r['kernels']} | {r['loops']} | {r['rewrite']} | "
                     f"{r['rewrite_s']} | {r['compile']} | {r['compile_s']} |")
    try:
        with open(args.output) as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    at = text.find(HEADING)
    before = (text[:at] if at >= 0 else text).rstrip("\n")
    with open(args.output, "w") as f:
        f.write((before + "\n\n" if before else "") + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
