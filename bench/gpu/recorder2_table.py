#!/usr/bin/env python3
"""Tables of one test/device/h200_recorder2.sh run (the recorder2/ folder of its archive): kernel
durations by ncu per recorder probe and per set of recorded ranges, the SGEMM per probe,
slice_cost's per-event cost per probe.
    python3 bench/gpu/recorder2_table.py <recorder2 dir>   -> markdown on stdout
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_csv  # noqa: E402
from sass_kloop import kloop  # noqa: E402
from ncu_csv import med, pct, us  # noqa: E402

d = sys.argv[1]
probes = {
    "p0": "shipped: wide RANGE as two 8-byte stores at base + cursor x 8",
    "p1": "wide RANGE at an even slot as one 16-byte store (two 8-byte ones at an odd slot)",
    "p2": "64-bit write pointer bumped per record (no address multiply)",
    "p3": "stores with the evict-first hint (st.global.cs)",
    "p4": "no clock read (the cursor as the time), stores kept",
    "p5": "clocks read, nothing stored",
    "p6": "no clock, no store: the cursor alone",
    "p7": "no clock read, stores to a shared-memory scratch array instead of the buffer",
    "p8": "clocks read, stores to a shared-memory scratch array instead of the buffer",
}
subsets = {
    "prod": "p0, producer ranges only (consumer's wait, compute, epilogue removed)",
    "cons": "p0, consumer ranges only (producer's wait_empty, load removed)",
    "nowait": "p0, all ranges but the consumer's wait",
    "nocompute": "p0, all ranges but the consumer's compute",
    "inflight": "p0, -DHOPPER_MMA_IN_FLIGHT=1 (one wgmma group in flight across stages)",
}


def durations(tag):
    return ncu_csv.durations(d, tag)


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

gs = durations("gemm_stripped")
if gs:
    print("\n## SGEMM 4096^3 by ncu kernel duration (median us; off = the stripped build)\n")
    print("| probe | minblocks | launches off/on | off | on | on / off |")
    print("|---|---|---|---|---|---|")
for mb in ("0", "5") if gs else ():
    s = gs.get(f"sgemm<{mb}>", [])
    for tag in probes:
        g = durations(f"gemm_{tag}").get(f"sgemm_cutrace_traced<{mb}>", [])
        if g:
            print(f"| {tag} | {mb} | {len(s)}/{len(g)} | {us(med(s))} | {us(med(g))} | "
                  f"{pct(med(g), med(s))} |")

slice_logs = [t for t in probes if os.path.exists(os.path.join(d, "logs", f"slice_cost_{t}.txt"))]
if slice_logs:
    print("\n## slice_cost: ns per event ((variant - stripped) / 1000 events; CUDA-event medians)\n")
    print("| probe | FMAs | CTAs/SM | stripped ms | per_cta | per_warpgroup | per_warp | per_warp_if |")
    print("|---|---|---|---|---|---|---|---|")
for tag in slice_logs:
    path = os.path.join(d, "logs", f"slice_cost_{tag}.txt")
    rows = [l.strip().split(",") for l in open(path) if l.startswith("slice_cost,")]
    t = {(r[1], r[2], r[3]): float(r[5]) for r in rows if r[1] != "device"}
    for fm, cs in sorted({(k[1], k[2]) for k in t}, key=lambda p: (int(p[1]), int(p[0]))):
        s = t[("stripped", fm, cs)]
        ns = [f"{(t[(v, fm, cs)] - s) * 1e6 / 1000:.2f}"
              for v in ("per_cta", "per_warpgroup", "per_warp", "per_warp_if")]
        print(f"| {tag} | {fm} | {cs} | {s:.4f} | " + " | ".join(ns) + " |")
print("\nProbes: CUTRACE_RECORDER_PROBE=N of runtime/include/cutrace/device.h.")


def source_rows(tag):
    """(offset, SASS, samples, executed) per instruction of a `ncu --page source --csv` export."""
    path = os.path.join(d, "stall", f"{tag}_source.csv")
    if not os.path.exists(path):
        return []
    rows = list(csv.reader(open(path)))
    ci = {n: i for i, n in enumerate(rows[1])}
    base = int(rows[2][ci["Address"]], 16)
    return [(int(r[ci["Address"]], 16) - base, r[ci["Source"]].strip(),
             float(r[ci["# Samples"]] or 0), float(r[ci["Instructions Executed"]] or 0))
            for r in rows[2:]]


# The consumer k-loop's instructions run once per k-tile in each of the warpgroup's 4 warps, the
# producer loop's once per k-tile in one warp: at 4096^3 on 132 CTAs, 131072 k-tiles.
K_TILES = 131072
stall_tags = [t for t in ("original", "twin_p0", "twin_p5") if source_rows(t)]
if stall_tags:
    print("\n## Where the time goes: warp stall samples of one 4096^3 launch (ncu source "
          "counters)\n")
    print("| kernel | samples | consumer k-loop (instructions) | wgmma wait (DEPBAR) | "
          "full-barrier wait | other instructions | of them clock reads | of them stores | producer loop | "
          "its empty-barrier wait |")
    print("|---|---|---|---|---|---|---|---|---|---|")
for tag in stall_tags:
    rows = source_rows(tag)
    loop = [x for x in rows if x[3] == 4 * K_TILES]
    prod = [x for x in rows if K_TILES - 1024 <= x[3] <= K_TILES]
    s = lambda xs: sum(x[2] for x in xs)
    dep = s(x for x in loop if "DEPBAR" in x[1])
    full = s(x for x in loop if "BRA" in x[1] and x[2] > 400)
    print(f"| {tag} | {s(rows):.0f} | {s(loop):.0f} ({len(loop)}) | {dep:.0f} | {full:.0f} | "
          f"{s(loop) - dep - full:.0f} | {s(x for x in loop if 'CLOCK' in x[1]):.0f} | "
          f"{s(x for x in loop if 'STG' in x[1]):.0f} | {s(prod):.0f} ({len(prod)}) | "
          f"{s(x for x in prod if 'BRA' in x[1] and x[2] > 400):.0f} |")


print("\n## The consumer k-loop in SASS per build (cuobjdump -sass of the twin)\n")
print("| build | instructions | clock reads | global stores | shared stores | stores before the "
      "wgmma fence (WARPGROUP.ARRIVE) | TRYWAIT to first HGMMA | after the wgmma wait |")
print("|---|---|---|---|---|---|---|---|")
for tag in ["original"] + list(probes) + list(subsets):
    # The device's whole listing, or the committed k-loop extract.
    name = "hopper_original.sass" if tag == "original" else f"hopper_{tag}_twin.sass"
    path = os.path.join(d, "sass", name)
    if not os.path.exists(path):
        path = os.path.join(d, "sass", f"hopper_kloop_{tag}.sass")
    if not os.path.exists(path):
        continue
    L = kloop(path)
    if not L:
        continue
    tw = next(i for i, s in enumerate(L) if "TRYWAIT" in s)
    hg = next(i for i, s in enumerate(L) if "HGMMA" in s)
    dp = next(i for i, s in enumerate(L) if "DEPBAR" in s)
    fence = next(i for i, s in enumerate(L) if "WARPGROUP.ARRIVE" in s)
    early = sum("STG" in s or "STS" in s for s in L[:fence])
    print(f"| {tag} | {len(L)} | {sum('CLOCK' in s for s in L)} | {sum('STG' in s for s in L)} | "
          f"{sum('STS' in s for s in L)} | {early} | {hg - tw} | {len(L) - 1 - dp} |")
