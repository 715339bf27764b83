#!/usr/bin/env python3
"""Tables of one test/device/h200_recorder4.sh run (the recorder4/ folder of its archive): per
recorder variant, kernel durations by ncu of examples/hopper_pipeline, the SGEMM and
examples/warp_specialized, recording off and on; slice_cost's cost per event; the hopper twin's
consumer k-loop in SASS.
    python3 bench/gpu/recorder4_table.py <recorder4 dir>   -> markdown on stdout
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_csv  # noqa: E402
from ncu_csv import med, pct, us  # noqa: E402
from sass_kloop import kloop  # noqa: E402

d = sys.argv[1]
known = {
    "d": "direct (shipped): st.global per record slot",
    "dclk": "direct, 32-bit %clock read (CUTRACE_CLOCK_READ=1)",
    "g64": "staged code, no row staged: generic stores to the buffer",
    "s16": "staged, 16 slots per row, generic stores",
    "s64": "staged, 64 slots per row, generic stores",
    "s256": "staged, 256 slots per row, generic stores",
    "s64clk": "s64 with the 32-bit %clock read",
    "s64sh": "staged, 64 slots per row, st.shared (CUTRACE_STAGING_SHARED=1)",
    "o64": "s64, the copy of a full block out of line (CUTRACE_STAGING_COPY=1)",
    "b16": "staged ring of 16 slots, full halves by bulk copy (CUTRACE_STAGING_COPY=2)",
    "b64": "staged ring of 64 slots, full halves by bulk copy",
    "b256": "staged ring of 256 slots, full halves by bulk copy",
}
present = sorted({f[len("hopper_"):-len(".csv")] for f in os.listdir(os.path.join(d, "ncu"))
                  if f.startswith("hopper_")} if os.path.isdir(os.path.join(d, "ncu")) else [])
variants = [v for v in known if v in present] + [v for v in present if v not in known]


def durations(tag):
    return ncu_csv.durations(d, tag)


print("## Kernel duration by ncu (median us), recording off and on\n")
print("hopper_pipeline 4096^3: original kernel and twin interleaved in one process; SGEMM 4096^3: "
      "off = the stripped build; warp_specialized: CUTRACE_LAUNCHES=none / all.\n")
print("| variant | what | hopper off | hopper on | hopper on/off | SGEMM(256) on/off | "
      "SGEMM(256,5) on/off | warp_specialized off / on |")
print("|---|---|---|---|---|---|---|---|")
gs = durations("gemm_stripped")
for v in variants:
    h = durations(f"hopper_{v}")
    off, on = h.get("ws_wgmma_gemm", []), h.get("ws_wgmma_gemm_cutrace_traced", [])
    g = durations(f"gemm_{v}")
    cells = []
    for mb in ("0", "5"):
        s, t = gs.get(f"sgemm<{mb}>", []), g.get(f"sgemm_cutrace_traced<{mb}>", [])
        cells.append(f"{pct(med(t), med(s))} ({us(med(t))} / {us(med(s))})")
    w_off = durations(f"ws_off_{v}").get("ws_gemm", [])
    w_on = durations(f"ws_on_{v}").get("ws_gemm_cutrace_traced", [])
    print(f"| {v} | {known.get(v, '')} | {us(med(off))} ({len(off)}) | {us(med(on))} ({len(on)}) | "
          f"**{pct(med(on), med(off))}** | {cells[0]} | {cells[1]} | {us(med(w_off))} / "
          f"{us(med(w_on))} |")

logs = [v for v in variants if os.path.exists(os.path.join(d, "logs", f"slice_cost_{v}.txt"))]
if logs:
    print("\n## slice_cost: ns per event ((variant - stripped) / 1000 events; CUDA-event medians; "
          "its events are instants with a payload)\n")
    print("| variant | FMAs | CTAs/SM | stripped ms | per_cta | per_warpgroup | per_warp | "
          "per_warp_if |")
    print("|---|---|---|---|---|---|---|---|")
for v in logs:
    rows = [l.strip().split(",") for l in open(os.path.join(d, "logs", f"slice_cost_{v}.txt"))
            if l.startswith("slice_cost,")]
    t = {(r[1], r[2], r[3]): float(r[5]) for r in rows if r[1] != "device"}
    for fm, cs in sorted({(k[1], k[2]) for k in t}, key=lambda p: (int(p[1]), int(p[0]))):
        s = t[("stripped", fm, cs)]
        ns = [f"{(t[(x, fm, cs)] - s) * 1e6 / 1000:.2f}" if (x, fm, cs) in t else "-"
              for x in ("per_cta", "per_warpgroup", "per_warp", "per_warp_if")]
        print(f"| {v} | {fm} | {cs} | {s:.4f} | " + " | ".join(ns) + " |")

print("\n## The consumer k-loop in SASS per variant (cuobjdump -sass of the hopper twin)\n")
print("Stores: `STG` global, `STS` shared, `ST.E` generic. The copy to the buffer of a full "
      "block lies outside these instructions (a branch not taken in the loop).\n")
print("| variant | instructions | clock reads | STG | STS | ST (generic) | branches | "
      "TRYWAIT to first HGMMA | after the wgmma wait |")
print("|---|---|---|---|---|---|---|---|---|")
for v in ["original"] + variants:
    name = "hopper_original.sass" if v == "original" else f"hopper_{v}_twin.sass"
    path = os.path.join(d, "sass", name)
    if not os.path.exists(path):
        path = os.path.join(d, "sass", f"hopper_kloop_{v}.sass")
    if not os.path.exists(path):
        continue
    L = kloop(path)
    if not L:
        continue
    tw = next(i for i, s in enumerate(L) if "TRYWAIT" in s)
    hg = next(i for i, s in enumerate(L) if "HGMMA" in s)
    dp = next(i for i, s in enumerate(L) if "DEPBAR" in s)
    counts = [sum(bool(re.search(rx, s)) for s in L)
              for rx in ("CLOCK", "STG", "STS", r"(^|\s)ST\.E", r"\bBRA\b")]
    print(f"| {v} | {len(L)} | " + " | ".join(str(c) for c in counts) +
          f" | {hg - tw} | {len(L) - 1 - dp} |")
