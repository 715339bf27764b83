#!/usr/bin/env python3
"""bench/auto/h200_auto.sh's cost.csv (ncu gpu__time_duration of every launch, prefixed by the
build and round) -> a markdown table: per kernel, the median of the timed launches (the first
launch of each kernel in a run is the warm-up and is left out) plain, --auto with recording off
(CUTRACE=0: the original runs), --auto recording (a row per CTA) and --auto=warps recording,
each also built with -DCUTRACE_AUTO_WARP_SKIP=0 (ctas0, warps0: every warp runs the iterations'
bookkeeping) and -DCUTRACE_AUTO_LIFE=0 (nolife: no range for the CTA's life). Builds a run did
not measure show as "-".

usage: cost_table.py cost.csv
"""
import csv
import statistics
import sys
from collections import defaultdict

UNITS = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
         "second": 1e6, "s": 1e6}
BUILDS = [("plain", "plain"), ("off", "--auto, CUTRACE=0"), ("ctas", "--auto"),
          ("ctas0", "--auto, CUTRACE_AUTO_WARP_SKIP=0"), ("nolife", "--auto, CUTRACE_AUTO_LIFE=0"),
          ("warps", "--auto=warps"),
          ("warps0", "--auto=warps, CUTRACE_AUTO_WARP_SKIP=0")]


def main():
    times = defaultdict(list)  # (build, kernel) -> us
    seen = set()
    with open(sys.argv[1], newline="") as f:
        for row in csv.reader(f):
            label, kernel, unit, value = row[0], row[5], row[-2], row[-1]
            build, _, rnd = label.rpartition("_")
            name = kernel.split("(")[0].replace("_cutrace_traced", "")
            twin = "_cutrace_traced" in kernel
            if (label, name) not in seen:  # the warm-up launch
                seen.add((label, name))
                continue
            us = float(value.replace(",", "")) * UNITS[unit]
            times[(build, name)].append((us, twin))
    kernels = sorted({k for _, k in times})
    print("| kernel | " + " | ".join(title for _, title in BUILDS) + " |")
    print("|---|" + "---|" * len(BUILDS))
    for k in kernels:
        plain = times.get(("plain", k))
        base = statistics.median(us for us, _ in plain) if plain else None
        cells = []
        for build, _ in BUILDS:
            got = times.get((build, k))
            if not got:
                cells.append("-")
                continue
            med = statistics.median(us for us, _ in got)
            ran = "twin" if all(t for _, t in got) else "original" if not any(t for _, t in got) \
                else "mixed"
            cell = f"{med:.1f} us"
            if base and build != "plain":
                cell += f" ({100 * (med / base - 1):+.1f}%)"
            if build != "plain":
                cell += f", {ran}"
            cells.append(cell + f", n={len(got)}")
        print(f"| `{k}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
