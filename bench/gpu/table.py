#!/usr/bin/env python3
"""Per-event cost table from event_cost CSV lines (bench/gpu/event_cost.cu output).

usage: table.py event_cost.csv
Each variant's kernel time is compared with the stripped build's at the same FMA count and
CTAs per SM: ns/event = (t_variant - t_stripped) / events per writer.
"""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
ghz = next(float(r[3].split()[0]) for r in rows if r[0] == "clock")
gpu = next(f"{r[1]}, {r[2]}" for r in rows if r[0] == "clock")
# Several rounds of the same measurement: keep the median round, and the spread for the notes.
samples = {}
for r in rows:
    if r[0] != "clock":
        samples.setdefault((r[0], int(r[1]), int(r[2])), []).append((int(r[3]), float(r[4])))
times = {k: sorted(v, key=lambda e: e[1])[len(v) // 2] for k, v in samples.items()}
rounds = max(len(v) for v in samples.values())
variants = [("traced", "(b) traced, clock64"), ("traced_globaltimer", "(e) traced, globaltimer"),
            ("hand", "(c) hand-written best"), ("global", "(d) global cursor RMW")]
print(f"GPU: {gpu}, SM clock measured {ghz:.3f} GHz; 1000 events per writer, 128 threads/CTA, "
      f"median of 21 launches, median of {rounds} interleaved round(s)\n")
print("| FMAs between events | CTAs/SM | variant | kernel ms | ns/event | cycles/event | slowdown |")
print("|---|---|---|---|---|---|---|")
cost = {}
for fmas in (8, 64, 512):
    for ctas in (1, 4):
        events, base = times[("stripped", fmas, ctas)]
        print(f"| {fmas} | {ctas} | (a) stripped | {base:.4f} | | | |")
        for key, label in variants:
            _, t = times[(key, fmas, ctas)]
            ns = (t - base) * 1e6 / events
            cost[(key, fmas, ctas)] = ns
            print(f"| {fmas} | {ctas} | {label} | {t:.4f} | {ns:.2f} | {ns * ghz:.1f} | "
                  f"{(t / base - 1) * 100:+.1f}% |")
print("\n| FMAs | CTAs/SM | traced/hand (per-event cost) | global/traced (per-event cost) |")
print("|---|---|---|---|")
for fmas in (8, 64, 512):
    for ctas in (1, 4):
        b, c, d = (cost[(k, fmas, ctas)] for k in ("traced", "hand", "global"))
        ratio = f"{b / c:.2f}" if c > 0.5 else f"n/a (hand {c:.2f} ns: within noise)"
        gd = f"{d / b:.0f}" if b > 0.5 else f"n/a (traced {b:.2f} ns: within noise)"
        print(f"| {fmas} | {ctas} | {ratio} | {gd} |")
