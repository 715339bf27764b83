#!/usr/bin/env python3
"""Tables of one test/device/h200_recorder2.sh run (the recorder2/ folder of its archive): kernel
durations by ncu per recorder probe and per set of recorded ranges, the SGEMM per probe,
slice_cost's per-event cost per probe.
    python3 bench/gpu/recorder2_table.py <recorder2 dir>   -> markdown on stdout
"""
import csv
import os
import re
import statistics
import sys

d = sys.argv[1]
probes = {
    "p0": "shipped: wide RANGE as two 8-byte stores at base + cursor x 8",
    "p1": "wide RANGE at an even slot as one 16-byte store (two 8-byte ones at an odd slot)",
    "p2": "64-bit write pointer bumped per record (no address multiply)",
    "p3": "stores with the evict-first hint (st.global.cs)",
    "p4": "no clock read (the cursor as the time), stores kept",
    "p5": "clocks read, nothing stored",
    "p6": "no clock, no store: the cursor alone",
}
subsets = {
    "prod": "p0, producer ranges only (consumer's wait, compute, epilogue removed)",
    "cons": "p0, consumer ranges only (producer's wait_empty, load removed)",
    "nowait": "p0, all ranges but the consumer's wait",
    "nocompute": "p0, all ranges but the consumer's compute",
    "inflight": "p0, -DHOPPER_MMA_IN_FLIGHT=1 (one wgmma group in flight across stages)",
}


def durations(tag):
    """Kernel name -> list of gpu__time_duration.sum in us, from one ncu CSV."""
    path = os.path.join(d, "ncu", tag + ".csv")
    if not os.path.exists(path):
        return {}
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    if not rows:
        return {}
    head = rows[0]
    k, v = head.index("Kernel Name"), head.index("Metric Value")
    out = {}
    for r in rows[1:]:
        name = re.sub(r"\(.*", "", r[k]).replace("void ", "")
        out.setdefault(name, []).append(float(r[v].replace(",", "")) / 1000)
    return out


def med(v):
    return statistics.median(v) if v else None


def us(v):
    return "-" if v is None else f"{v:.2f}"


def pct(a, b):
    return "-" if a is None or b is None else f"{(a / b - 1) * 100:+.1f}%"


print("## hopper_pipeline 4096^3 by ncu kernel duration (median us; original kernel and twin "
      "interleaved in one process)\n")
print("| build | what | launches off/on | off (original) | on (twin) | on / off |")
print("|---|---|---|---|---|---|")
for tag, what in list(probes.items()) + list(subsets.items()):
    h = durations(f"hopper_{tag}")
    off, on = h.get("ws_wgmma_gemm", []), h.get("ws_wgmma_gemm_cutrace_traced", [])
    if off or on:
        print(f"| {tag} | {what} | {len(off)}/{len(on)} | {us(med(off))} | {us(med(on))} | "
              f"{pct(med(on), med(off))} |")

print("\n## SGEMM 4096^3 by ncu kernel duration (median us; off = the stripped build)\n")
print("| probe | minblocks | launches off/on | off | on | on / off |")
print("|---|---|---|---|---|---|")
gs = durations("gemm_stripped")
for mb in ("0", "5"):
    s = gs.get(f"sgemm<{mb}>", [])
    for tag in probes:
        g = durations(f"gemm_{tag}").get(f"sgemm_cutrace_traced<{mb}>", [])
        if g:
            print(f"| {tag} | {mb} | {len(s)}/{len(g)} | {us(med(s))} | {us(med(g))} | "
                  f"{pct(med(g), med(s))} |")

print("\n## slice_cost: ns per event ((variant - stripped) / 1000 events; CUDA-event medians)\n")
print("| probe | FMAs | CTAs/SM | stripped ms | per_cta | per_warpgroup | per_warp | per_warp_if |")
print("|---|---|---|---|---|---|---|---|")
for tag in probes:
    path = os.path.join(d, "logs", f"slice_cost_{tag}.txt")
    if not os.path.exists(path):
        continue
    rows = [l.strip().split(",") for l in open(path) if l.startswith("slice_cost,")]
    t = {(r[1], r[2], r[3]): float(r[5]) for r in rows if r[1] != "device"}
    for fm, cs in sorted({(k[1], k[2]) for k in t}, key=lambda p: (int(p[1]), int(p[0]))):
        s = t[("stripped", fm, cs)]
        ns = [f"{(t[(v, fm, cs)] - s) * 1e6 / 1000:.2f}"
              for v in ("per_cta", "per_warpgroup", "per_warp", "per_warp_if")]
        print(f"| {tag} | {fm} | {cs} | {s:.4f} | " + " | ".join(ns) + " |")
print("\nProbes: CUTRACE_RECORDER_PROBE=N of runtime/include/cutrace/device.h.")
