#!/usr/bin/env python3
"""One line of a GPU script's results from ncu's CSV of kernel durations.

    ncu_median.py CSV NAME

CSV is what `ncu --metrics gpu__time_duration.sum --csv` printed (its own notes and the
program's output mixed in); prints `- NAME: MEDIAN (EACH, ...)` in microseconds, the median of
every launch but the first (a warm-up), or `- NAME: no kernel measured`. Used by
bench/cutlass/gpu_rows.sh and gpu_tutorial.sh.
"""
import csv
import statistics
import sys

# ncu names its units "nsecond" in some versions and "ns" in others.
TO_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}


def main():
    path, name = sys.argv[1:3]
    rows = [r for r in csv.reader(open(path, errors="replace")) if len(r) > 10]
    if len(rows) < 3:
        print(f"- {name}: no kernel measured")
        return
    head, body = rows[0], rows[1:]
    value, unit = head.index("Metric Value"), head.index("Metric Unit")
    us = [float(r[value].replace(",", "")) * TO_US.get(r[unit], float("nan")) for r in body]
    print(f"- {name}: {statistics.median(us[1:]):.1f} ({', '.join(f'{x:.1f}' for x in us)})")


if __name__ == "__main__":
    main()
