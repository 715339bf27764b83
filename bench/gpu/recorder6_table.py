#!/usr/bin/env python3
"""Tables of one test/device/h200_recorder6.sh run (the recorder6/ folder of its archive): kernel
durations by ncu of examples/hopper_pipeline and the SGEMM per recorder probe, several processes
each, the probes' hot loops in SASS, and the accuracy of the shipped recorder.
    python3 bench/gpu/recorder6_table.py <recorder6 dir>   -> markdown on stdout
    python3 bench/gpu/recorder6_table.py <recorder6 dir> --excerpts <dir>
        -> the hot loops of every build's SASS cut from the whole listings (read back from
           <recorder6 dir>/sass/ when the whole listings are not there)
"""
import csv
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_csv  # noqa: E402
from ncu_csv import med, pct, us  # noqa: E402
from sass_kloop import kloop_lines, loop_lines  # noqa: E402

d = sys.argv[1]
known = {
    "c2": "shipped (CUTRACE_COMPACT=2)",
    "a": "c2, one clock read where a range ends and the next begins",
    "b": "c2, the first range's record stored where the second ends",
    "ab": "a and b",
    "acons": "a, the consumers' pair only", "aprod": "a, the producer's pair only",
    "bcons": "b, the consumers' pair only", "bprod": "b, the producer's pair only",
    "abcons": "ab, the consumers' pair only", "abprod": "ab, the producer's pair only",
    "c2cs": "c2, evict-first stores (CUTRACE_EVICT_FIRST=1)",
    "d": "the stores before c2 (CUTRACE_COMPACT=0)",
    "p2": "d, a 64-bit write pointer (probe 2)",
    "p3": "d, evict-first stores (probe 3)",
    "p4": "d, the stores without clock reads (probe 4)",
    "p5": "d, the clock reads without stores (probe 5)",
    "s2": "c2, the k-loop ranges recorded every 2nd stage (TRACE_RANGE_IF)",
    "s8": "c2, the k-loop ranges recorded every 8th stage (TRACE_RANGE_IF)",
    "s64": "c2, the k-loop ranges recorded every 64th stage (TRACE_RANGE_IF)",
    "s0": "c2, the k-loop ranges as TRACE_RANGE_IF never true at run time",
    "v8": "c2, each k-loop twice: annotated for every 8th tile, without markers otherwise",
    "v0": "c2, each k-loop twice: the annotated one never run",
    "v1": "c2, each k-loop twice: the annotated one for every tile",
    "t8": "c2, TRACE_SAMPLE: every 8th tile of the CTA (SGEMM: every 8th CTA) recorded",
    "t0": "c2, TRACE_SAMPLE never true at run time",
    "t1": "c2, TRACE_SAMPLE always true at run time",
}
# The sampled builds again with TRACE_RANGE_IF's recording under a branch (h200_recorder6.sh).
known.update({f"{v}br": f"{what}; under a branch (CUTRACE_RANGE_IF_BRANCH=1)"
              for v, what in list(known.items()) if re.fullmatch(r"s\d+", v)})
# Each build again against the example with relaxed mbarrier arrives (h200_recorder6.sh, <v>rel).
known.update({f"{v}rel": f"{what}; relaxed arrives" for v, what in list(known.items())})
tags = [os.path.basename(f)[:-len(".csv")] for f in glob.glob(os.path.join(d, "ncu", "*.csv"))]
variants = [v for v in known if any(t.startswith(f"hopper_{v}_r") for t in tags)]
rounds = sorted({int(t.rsplit("_r", 1)[1]) for t in tags if re.search(r"_r\d+$", t)})


def durations(tag):
    return ncu_csv.durations(d, tag)


def ratio(on, off):
    return None if on is None or off is None else on / off - 1


def spct(x):
    return "-" if x is None else f"{x * 100:+.1f}%"


# The hot loops: the consumer's k-loop of the hopper twin, its producer's loop (around the bulk
# copies, UBLKCP) and the SGEMM's k-loop (sgemm<0>), from the whole listings of the run or from
# the excerpts `--excerpts` writes (what is committed).
HOPPER_TWIN = "ws_wgmma_gemm_cutrace_traced"
SGEMM = {"original": "_Z5sgemmILi0EE"}


def listing(kind, v):
    full = {"hopper": "hopper_original.sass" if v == "original" else f"hopper_{v}_twin.sass",
            "gemm": "gemm_stripped.sass" if v == "original" else f"gemm_{v}.sass"}[kind]
    return os.path.join(d, "sass", full)


def loops(v):
    """(consumer k-loop, producer loop, SGEMM k-loop) lines of build v, as cuobjdump wrote them."""
    cut = {k: os.path.join(d, "sass", f"{k}_{v}.sass") for k in ("kloop", "producer", "sgemm")}
    if all(os.path.exists(p) for p in cut.values()):
        return tuple(open(cut[k]).read().split("\n") for k in ("kloop", "producer", "sgemm"))
    h, g = listing("hopper", v), listing("gemm", v)
    if not os.path.exists(h):
        return None
    return (kloop_lines(h), loop_lines(h, "UBLKCP"),
            loop_lines(g, "FFMA", SGEMM.get(v, "sgemm_cutrace_tracedILi0EE"))
            if os.path.exists(g) else [])


def body(lines):
    return [m.group(1).strip() for m in
            (re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", l) for l in lines) if m]


if len(sys.argv) > 3 and sys.argv[2] == "--excerpts":
    os.makedirs(sys.argv[3], exist_ok=True)
    for v in ["original"] + variants:
        got = loops(v)
        for k, lines in zip(("kloop", "producer", "sgemm"), got or ()):
            # offset and instruction per line, the encodings left out
            kept = [re.sub(r"\s*/\* 0x[0-9a-f]{16} \*/", "", l).rstrip() for l in lines]
            with open(os.path.join(sys.argv[3], f"{k}_{v}.sass"), "w") as f:
                f.write("\n".join(l for l in kept if l) + "\n")
    sys.exit(0)

print("## examples/hopper_pipeline 4096^3, kernel duration by ncu (median us)\n")
plain = [t for r in rounds for t in durations(f"hopper_plain_r{r}").get("ws_wgmma_gemm", [])]
print(f"Never-annotated build: {us(med(plain))} µs ({len(plain)} launches in {len(rounds)} "
      "processes). Per process: the original kernel ('off') and the twin ('on') interleaved; "
      "the processes of one round run one per build, the rounds one after another.\n")
head = " | ".join(f"round {r} on / off" for r in rounds)
print(f"| build | what | {head} | median of rounds | all on / all off | against c2 (points) | "
      "on / never-annotated |")
print("|---|---|" + "---|" * len(rounds) + "---|---|---|---|")
summary = {}
for v in variants:
    per, ons, offs = [], [], []
    for r in rounds:
        h = durations(f"hopper_{v}_r{r}")
        off, on = h.get("ws_wgmma_gemm", []), h.get("ws_wgmma_gemm_cutrace_traced", [])
        per.append((ratio(med(on), med(off)), med(on), med(off)))
        ons += on
        offs += off
    mid = med([p[0] for p in per if p[0] is not None])
    summary[v] = mid
    cells = " | ".join(f"{spct(p[0])} ({us(p[1])} / {us(p[2])})" for p in per)
    against = "" if v == "c2" or mid is None or summary.get("c2") is None else \
        f"{(mid - summary['c2']) * 100:+.1f}"
    print(f"| {v} | {known[v]} | {cells} | **{spct(mid)}** | {pct(med(ons), med(offs))} | "
          f"{against} | {pct(med(ons), med(plain))} |")

grounds = sorted({int(t.rsplit("_r", 1)[1]) for t in tags if t.startswith("gemm_stripped_r")})
if grounds:  # a run may measure the hopper GEMM alone (R6_GEMM_ROUNDS=0)
    print("\n## SGEMM 4096^3 (bench/gpu/gemm_overhead.cu), kernel duration by ncu (median us, 8 "
          "launches per process), against the stripped build of the same round\n")
    for r in grounds:
        s = durations(f"gemm_stripped_r{r}")
        print(f"Round {r} stripped: `(256)` {us(med(s.get('sgemm<0>', [])))}, `(256, 5)` "
              f"{us(med(s.get('sgemm<5>', [])))}.")
    print()
    head = " | ".join(f"r{r} `(256)` | r{r} `(256, 5)`" for r in grounds)
    print(f"| build | {head} | median `(256)` | median `(256, 5)` |")
    print("|---|" + "---|---|" * len(grounds) + "---|---|")
    for v in variants:
        cells, r0, r5 = [], [], []
        for r in grounds:
            s, g = durations(f"gemm_stripped_r{r}"), durations(f"gemm_{v}_r{r}")
            x0 = ratio(med(g.get("sgemm_cutrace_traced<0>", [])), med(s.get("sgemm<0>", [])))
            x5 = ratio(med(g.get("sgemm_cutrace_traced<5>", [])), med(s.get("sgemm<5>", [])))
            cells += [spct(x0), spct(x5)]
            r0 += [x0] if x0 is not None else []
            r5 += [x5] if x5 is not None else []
        print(f"| {v} | " + " | ".join(cells) + f" | **{spct(med(r0))}** | **{spct(med(r5))}** |")


print("\n## SASS (cuobjdump -sass)\n")
print("hopper twin's consumer k-loop (`wait` and `compute` per k-tile): instructions, clock "
      "reads, stores, from the stage's barrier wait to the first HGMMA, after the wgmma wait, "
      "stores before the stage's release (`SYNCS.ARRIVE`, the empty barrier's arrive); the "
      "producer's loop (`wait_empty` and `load` per stage, around `UBLKCP`): instructions, clock "
      "reads, stores, stores before its first `UBLKCP` (the TMA issue). SGEMM `sgemm<0>`: the "
      "k-loop (instructions, clock reads, stores).\n")
print("| build | k-loop | clock reads | STG | TRYWAIT to HGMMA | after the wgmma wait | STG before "
      "the release | producer loop | its clock reads | its STG | STG before UBLKCP | SGEMM k-loop "
      "| its clock reads | its STG |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for v in ["original"] + variants:
    got = loops(v)
    if not got:
        continue
    L, P, gk = (body(x) for x in got)
    tw = next(i for i, s in enumerate(L) if "TRYWAIT" in s)
    hg = next(i for i, s in enumerate(L) if "HGMMA" in s)
    dp = next(i for i, s in enumerate(L) if "DEPBAR" in s)
    rel = next((i for i, s in enumerate(L) if re.search(r"\bSYNCS\.ARRIVE", s)), len(L))
    cp = next((i for i, s in enumerate(P) if "UBLKCP" in s), len(P))
    nclk = lambda xs: sum("CLOCK" in s for s in xs)  # noqa: E731
    nst = lambda xs: sum(re.search(r"\bSTG", s) is not None for s in xs)  # noqa: E731
    sg = f"{len(gk)} | {nclk(gk)} | {nst(gk)}" if gk else "- | - | -"  # no SGEMM built
    print(f"| {v} | {len(L)} | {nclk(L)} | {nst(L)} | {hg - tw} | {len(L) - 1 - dp} | "
          f"{nst(L[:rel])} | {len(P)} | {nclk(P)} | {nst(P)} | {nst(P[:cp])} | {sg} |")

print("\n## Accuracy of the shipped recorder (bench/gpu/accuracy.cu, c2; cycles; alone)\n")
print("| spin cycles | events around | recorded - inside (median) | max abs | inside (median) "
      "| error |")
print("|---|---|---|---|---|---|")
path = os.path.join(d, "logs", "accuracy_c2.txt")
for line in open(path) if os.path.exists(path) else []:
    f = line.strip().split(",")
    if f[0] != "accuracy" or f[3] == "FAIL":
        continue
    print(f"| {f[1]} | {'yes' if f[2] == '1' else 'no'} | {f[3]} | {f[4]} | {f[5]} | "
          f"{int(f[3]) / int(f[5]) * 100:.2f}% |")

print("\n## Kernel length as the events show it against ncu's duration of the same launch\n")
print("| program | events span µs | ncu µs | difference |")
print("|---|---|---|---|")
path = os.path.join(d, "ncu", "accuracy_c2.csv")
if os.path.exists(path):
    lines = open(path).read().splitlines()
    acc = [l.split(",") for l in lines if l.startswith("accuracy,")]
    rows = list(csv.reader(l for l in lines if l.startswith('"')))
    k, val = rows[0].index("Kernel Name"), rows[0].index("Metric Value")
    on = [float(r[val].replace(",", "")) / 1000 for r in rows[1:] if "traced" in r[k]]
    for a, n in zip(acc, on[3::4]):  # 3 timed launches, then the recorded one, per setting
        span = float(a[8])
        print(f"| accuracy, {a[1]}-cycle spins{', events around' if a[2] == '1' else ''} | "
              f"{span:.2f} | {n:.2f} | {(span / n - 1) * 100:+.2f}% |")
# hopper_pipeline: the automatic launch records the program's first launch, the twin's first
# launch in ncu's list; check_ctrace prints the span its events show.
for v in variants:
    check = os.path.join(d, "logs", f"check_{v}.txt")
    if v.startswith("p4") or not os.path.exists(check):  # probe 4 stamps the cursor, not a time
        continue
    text = open(check).read()
    m = re.search(r"## \S*out_hopper_%s_r1/\S+\n(?:.*\n)*?\s*events span ([0-9.]+) us" % v, text)
    twin = durations(f"hopper_{v}_r1").get("ws_wgmma_gemm_cutrace_traced", [])
    if m and twin:
        span = float(m.group(1))
        print(f"| hopper_pipeline 4096³ ({v}) | {span:.2f} | {twin[0]:.2f} | "
              f"{(span / twin[0] - 1) * 100:+.2f}% |")
