#!/usr/bin/env python3
"""Tables of one test/device/h200_compact.sh run (the compact/ folder of its archive): kernel
durations by ncu of examples/hopper_pipeline and the SGEMM, each with and without payloads on
their ranges, per way of storing records; bytes per launch; slice_cost's cost per event; the
instructions per record in SASS.
    python3 bench/gpu/compact_table.py <compact dir>   -> markdown on stdout
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_csv  # noqa: E402
from ncu_csv import med, pct, us  # noqa: E402
from sass_kloop import kloop  # noqa: E402

d = sys.argv[1]
known = {
    "d": "CUTRACE_COMPACT=0: the stores before (each slot its own address and test)",
    "dn": "d, narrow RANGEs",
    "c": "CUTRACE_COMPACT=1: second slot at [a+8], tests against constants, row address in registers",
    "cn": "c, narrow RANGEs",
    "c2": "CUTRACE_COMPACT=2: c with addresses from the buffer and the row's first slot",
    "c2n": "c2, narrow RANGEs",
}
ncu_dir = os.path.join(d, "ncu")
present = {f[len("hopper_"):-len(".csv")] for f in os.listdir(ncu_dir) if f.startswith("hopper_")}
variants = [v for v in known if v in present]


def durations(tag):
    return ncu_csv.durations(d, tag)


def instructions(path, function=None):
    """The instructions of a cuobjdump -sass listing (of `function` only, when given)."""
    out, inside = [], function is None
    for line in open(path):
        if "Function :" in line:
            inside = function is None or function in line
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and inside:
            out.append(m.group(2).strip())
    return out


bytes_of = {}  # (variant, program) -> bytes of its run file, from the summary's check lines
for line in open(os.path.join(d, "summary.txt")):
    m = re.match(r"check_ctrace (\S+) (\S+) rc=(\d+) (\d+) bytes", line)
    if m:
        v, f = m.group(1), m.group(2)
        prog = ("hopper_np" if "hopper_np" in f else "hopper" if "hopper" in f
                else "gemm_np" if "/np/" in f else "gemm")
        bytes_of[(v, prog)] = (int(m.group(4)), m.group(3))

print("## examples/hopper_pipeline 4096^3, kernel duration by ncu (median us)\n")
plain = durations("hopper_plain").get("ws_wgmma_gemm", [])
zero = durations("hopper_cutrace0").get("ws_wgmma_gemm", [])
originals = []
for v in variants:
    for p in ("hopper", "hopper_np"):
        originals += durations(f"{p}_{v}").get("ws_wgmma_gemm", [])
print(f"Never-annotated build (plain): {us(med(plain))} ({len(plain)} launches); traced build with "
      f"`CUTRACE=0`, its original kernel: {us(med(zero))} ({len(zero)}); the original kernel "
      f"over every variant's process: {us(med(originals))} ({len(originals)}). 'off' is the "
      "original kernel in the same process as the twin ('on'), launches interleaved.\n")
print("| variant | what | ranges | off | on | on / off | on / plain | run file bytes |")
print("|---|---|---|---|---|---|---|---|")
for v in variants:
    for p, what in (("hopper", "payload"), ("hopper_np", "no payload")):
        h = durations(f"{p}_{v}")
        off, on = h.get("ws_wgmma_gemm", []), h.get("ws_wgmma_gemm_cutrace_traced", [])
        b = bytes_of.get((v, p), ("-", "-"))
        print(f"| {v} | {known[v]} | {what} | {us(med(off))} | {us(med(on))} | "
              f"**{pct(med(on), med(off))}** | {pct(med(on), med(plain))} | {b[0]} |")

print("\n## SGEMM 4096^3 (bench/gpu/gemm_overhead.cu), kernel duration by ncu (median us, 8 "
      "launches)\n")
gs = durations("gemm_stripped")
s0, s5 = med(gs.get("sgemm<0>", [])), med(gs.get("sgemm<5>", []))
print(f"Stripped: `(256)` {us(s0)}, `(256, 5)` {us(s5)}.\n")
print("| variant | ranges | `(256)` on | on / stripped | `(256, 5)` on | on / stripped | "
      "run file bytes |")
print("|---|---|---|---|---|---|---|")
for v in variants:
    for p, what in (("gemm", "payload"), ("gemm_np", "no payload")):
        g = durations(f"{p}_{v}")
        t0 = med(g.get("sgemm_cutrace_traced<0>", []))
        t5 = med(g.get("sgemm_cutrace_traced<5>", []))
        b = bytes_of.get((v, p), ("-", "-"))
        print(f"| {v} | {what} | {us(t0)} | **{pct(t0, s0)}** | {us(t5)} | **{pct(t5, s5)}** | "
              f"{b[0]} |")

print("\n## slice_cost: ns per event ((variant - stripped) / 1000 events; CUDA-event medians; its "
      "events are instants with a payload: two slots each)\n")
print("| variant | FMAs | CTAs/SM | per_cta | per_warpgroup | per_warp | per_warp_if |")
print("|---|---|---|---|---|---|---|")
for v in variants:
    path = os.path.join(d, "logs", f"slice_cost_{v}.txt")
    if not os.path.exists(path):
        continue
    rows = [l.strip().split(",") for l in open(path) if l.startswith("slice_cost,")]
    t = {(r[1], r[2], r[3]): float(r[5]) for r in rows if r[1] != "device"}
    for fm, cs in sorted({(k[1], k[2]) for k in t}, key=lambda p: (int(p[1]), int(p[0]))):
        s = t[("stripped", fm, cs)]
        ns = [f"{(t[(x, fm, cs)] - s) * 1e6 / 1000:.2f}" if (x, fm, cs) in t else "-"
              for x in ("per_cta", "per_warpgroup", "per_warp", "per_warp_if")]
        print(f"| {v} | {fm} | {cs} | " + " | ".join(ns) + " |")

print("\n## SASS (cuobjdump -sass)\n")
print("hopper twin's consumer k-loop (two ranges per k-tile, `wait` and `compute`): instructions "
      "in the loop, clock reads, stores; from the stage's barrier wait to the first HGMMA; after "
      "the wgmma wait; between the clock read that ends `wait` and the one that begins `compute` "
      "(the end of a range: everything there is the recorder's).\n")
print("| variant | ranges | k-loop | clock reads | STG | TRYWAIT to HGMMA | after the wgmma wait | "
      "wait's end to compute's begin |")
print("|---|---|---|---|---|---|---|---|")
for v in ["original"] + variants:
    for p in (("hopper",) if v == "original" else ("hopper", "hopper_np")):
        name = "hopper_original.sass" if v == "original" else f"{p}_{v}_twin.sass"
        path = os.path.join(d, "sass", name)
        if not os.path.exists(path):
            path = os.path.join(d, "sass", f"{p}_kloop_{v}.sass")
        if not os.path.exists(path):
            continue
        L = kloop(path)
        tw = next(i for i, s in enumerate(L) if "TRYWAIT" in s)
        hg = next(i for i, s in enumerate(L) if "HGMMA" in s)
        dp = next(i for i, s in enumerate(L) if "DEPBAR" in s)
        clocks = [i for i, s in enumerate(L) if "SR_CLOCKLO" in s]
        between = clocks[2] - clocks[1] - 1 if len(clocks) >= 3 else "-"
        stg = sum("STG" in s for s in L)
        print(f"| {v} | {'payload' if p == 'hopper' else 'no payload'} | {len(L)} | {len(clocks)} "
              f"| {stg} | {hg - tw} | {len(L) - 1 - dp} | {between} |")

print("\nslice_cost's per_cta<8> kernel (`TRACE_RECORD(\"event\", e)`, an instant with a payload, "
      "between 8 FMAs): instructions other than FFMA between one event's clock read and the "
      "next's (median over its unrolled loop).\n")
print("| variant | instructions per event | of them STG |")
print("|---|---|---|")
for v in variants:
    path = os.path.join(d, "sass", f"slice_cost_{v}.sass")
    if not os.path.exists(path):
        path = os.path.join(d, "sass", f"slice_cost_per_cta8_{v}.sass")
    if not os.path.exists(path):
        continue
    ins = instructions(path, "_Z22per_cta_cutrace_tracedILi8E")
    clocks = [i for i, s in enumerate(ins) if "SR_CLOCKLO" in s]
    win = [[s for s in ins[a + 1:b] if not s.startswith("FFMA")] for a, b in zip(clocks, clocks[1:])]
    if not win:
        continue
    n = statistics.median(len(w) for w in win)
    stg = statistics.median(sum("STG" in s for s in w) for w in win)
    print(f"| {v} | {n:g} (+ the clock read) | {stg:g} |")
