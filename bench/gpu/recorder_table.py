#!/usr/bin/env python3
"""Tables of one test/device/h200_recorder.sh run (the recorder/ folder of its archive):
kernel durations by ncu per recorder design, slice_cost's per-event cost, the accuracy probe.
    python3 bench/gpu/recorder_table.py <recorder dir>   -> markdown on stdout
"""
import csv
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_csv  # noqa: E402
from ncu_csv import med, pct, us  # noqa: E402

d = sys.argv[1]
designs = [x for x in ("r16", "r8", "r8d", "r8n", "r8w")
           if os.path.exists(os.path.join(d, "ncu", f"hopper_{x}.csv"))]
names = {"r16": "16-byte records (BEGIN + END per range)",
         "r8": "8-byte records, narrow 8-byte RANGE (first run, 15-bit length)",
         "r8d": "as r8, each record stored at the row's next one (deferred)",
         "r8n": "8-byte records, narrow 8-byte RANGE",
         "r8w": "8-byte records, wide 16-byte RANGE (shipped)"}


def durations(tag):
    return ncu_csv.durations(d, tag)


print("## Kernel duration by ncu (median us; `ncu --clock-control none --metrics "
      "gpu__time_duration.sum`)\n")
print("| program | design | launches off/on | off (original kernel) | on (twin) | on / off |"
      " on / stripped |")
print("|---|---|---|---|---|---|---|")
hs = med(durations("hopper_stripped").get("ws_wgmma_gemm", []))
gs = durations("gemm_stripped")
for x in designs:
    h = durations(f"hopper_{x}")
    off, on = h.get("ws_wgmma_gemm", []), h.get("ws_wgmma_gemm_cutrace_traced", [])
    print(f"| hopper_pipeline 4096^3 | {x} | {len(off)}/{len(on)} | {us(med(off))} | "
          f"{us(med(on))} | {pct(med(on), med(off))} | {pct(med(on), hs)} |")
for mb in ("0", "5"):
    for x in designs:
        g = durations(f"gemm_{x}").get(f"sgemm_cutrace_traced<{mb}>", [])
        s = gs.get(f"sgemm<{mb}>", [])
        print(f"| SGEMM 4096^3, minblocks {mb} | {x} | {len(s)}/{len(g)} (stripped build) | "
              f"{us(med(s))} | {us(med(g))} | {pct(med(g), med(s))} | {pct(med(g), med(s))} |")
for x in designs:
    off = durations(f"ws_off_{x}").get("ws_gemm", [])
    on = durations(f"ws_on_{x}").get("ws_gemm_cutrace_traced", [])
    print(f"| warp_specialized | {x} | {len(off)}/{len(on)} | {us(med(off))} | {us(med(on))} | "
          f"{pct(med(on), med(off))} | - |")
print("\nDesigns: " + "; ".join(f"{x}: {names[x]}" for x in designs) + ".\n")

print("## slice_cost: ns per event ((variant - stripped) / 1000 events; CUDA-event medians)\n")
print("| design | FMAs | CTAs/SM | stripped ms | per_cta | per_warpgroup | per_warp |"
      " per_warp_if | slots stored per_cta |")
print("|---|---|---|---|---|---|---|---|---|")
for x in designs:
    path = os.path.join(d, "logs", f"slice_cost_{x}.txt")
    if not os.path.exists(path):
        continue
    rows = [l.strip().split(",") for l in open(path) if l.startswith("slice_cost,")]
    stored = {l.split(",")[1]: l.split(",")[3] for l in open(path) if l.startswith("slice_rows,")}
    t = {(r[1], r[2], r[3]): float(r[5]) for r in rows if r[1] != "device"}
    for fm, cs in sorted({(k[1], k[2]) for k in t}, key=lambda p: (int(p[1]), int(p[0]))):
        s = t[("stripped", fm, cs)]
        ns = [f"{(t[(v, fm, cs)] - s) * 1e6 / 1000:.2f}"
              for v in ("per_cta", "per_warpgroup", "per_warp", "per_warp_if")]
        print(f"| {x} | {fm} | {cs} | {s:.4f} | " + " | ".join(ns) +
              f" | {stored.get('per_cta', '-')} |")

print("\n## Accuracy probe (bench/gpu/accuracy.cu; cycles; plain run)\n")
print("| design | spin cycles | events around | recorded - inside (median) | max abs |"
      " inside (median) | error |")
print("|---|---|---|---|---|---|---|")
for x in designs:
    path = os.path.join(d, "logs", f"accuracy_{x}.txt")
    if not os.path.exists(path):
        continue
    for line in open(path):
        f = line.strip().split(",")
        if f[0] != "accuracy" or f[3] == "FAIL":
            continue
        print(f"| {x} | {f[1]} | {'yes' if f[2] == '1' else 'no'} | {f[3]} | {f[4]} | {f[5]} | "
              f"{int(f[3]) / int(f[5]) * 100:.2f}% |")

print("\n## Kernel length as the events show it against ncu (same launch)\n")
print("| design | program | events span us | ncu us | difference |")
print("|---|---|---|---|---|")
for x in designs:
    path = os.path.join(d, "ncu", f"accuracy_{x}.csv")
    if not os.path.exists(path):
        continue
    lines = open(path).read().splitlines()
    acc = [l.split(",") for l in lines if l.startswith("accuracy,")]
    rows = list(csv.reader(l for l in lines if l.startswith('"')))
    k, v = rows[0].index("Kernel Name"), rows[0].index("Metric Value")
    on = [float(r[v].replace(",", "")) / 1000 for r in rows[1:] if "traced" in r[k]]
    for a, n in zip(acc, on[3::4]):  # 3 timed launches, then the recorded one, per setting
        span = float(a[8])
        print(f"| {x} | accuracy, {a[1]}-cycle spins{', events around' if a[2] == '1' else ''} |"
              f" {span:.2f} | {n:.2f} | {(span / n - 1) * 100:+.2f}% |")
