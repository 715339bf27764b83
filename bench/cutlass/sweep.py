#!/usr/bin/env python3
"""A sweep of CUTLASS 3 Hopper GEMM configurations x annotation placements, traced as written.

    sweep.py CUTLASS_DIR [--rewrite BIN] [--jobs J] [--configs A,B] [--placements P,Q]

CUTLASS_DIR is a checkout at bench/cutlass/COMMIT. For each placement of bench/cutlass/annotate.py
(--placement: groups in each role's branch, groups together at the top of operator(), roles plus a
TRACE_SAMPLE on one CTA in 8, or in 64, before each mma() k-loop's CUTLASS_PRAGMA_NO_UNROLL):
  1. the annotated headers, and strip of each equals CUTLASS's own byte for byte;
  2. for each configuration of bench/cutlass/sweep_gemm.cu (schedule, mainloop collective, element
     type, tile and cluster shape): `trace-rewrite --traced` against those headers, as the
     wrapper runs it, and its decode map holds what the placement implies: the rows `producer`
     and `consumer` and the sites `load_tile` and `consume` in the GEMM kernel's map.
Writes build-cutlass/sweep/ (annotated trees; ignored by git), .carry/sweep/ (traced outputs, the
annotated files, a CUTLASS archive: what bench/cutlass/gpu_sweep.sh builds and runs on the GPU)
and .carry/sweep.tgz (all of it, to carry),
and prints the table (configurations x placements: accepted with the map's rows and sites, or
refused with the rewrite's first error). Exit status 1 when a strip differs or a placement's map
misses what it implies.
"""
import argparse
import concurrent.futures
import json
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "build-cutlass" / "sweep"
CARRY = ROOT / ".carry" / "sweep"

# name: (element, A column-major, schedule, tile M, tile N, cluster M). The collective follows:
# SS for 16-bit and tf32 with K-major A, RS for tf32 with M-major A, the FP8 collective for e4m3
# unless the schedule is fp8_fast.
CONFIGS = {
    "f16_ws_128x128_c1": ("F16", 0, "WS", 128, 128, 1),
    "f16_coop_128x128_c2": ("F16", 0, "COOPERATIVE", 128, 128, 2),
    "f16_pingpong_128x128_c1": ("F16", 0, "PINGPONG", 128, 128, 1),
    "f16_auto_128x128_c1": ("F16", 0, "AUTO", 128, 128, 1),
    "bf16_coop_256x128_c1": ("BF16", 0, "COOPERATIVE", 256, 128, 1),
    "bf16_pingpong_128x128_c2": ("BF16", 0, "PINGPONG", 128, 128, 2),
    "tf32_coop_128x128_c1": ("TF32", 0, "COOPERATIVE", 128, 128, 1),
    "tf32_rs_ws_128x128_c1": ("TF32", 1, "WS", 128, 128, 1),
    "e4m3_coop_128x128_c1": ("E4M3", 0, "COOPERATIVE", 128, 128, 1),
    "e4m3_fast_128x128_c2": ("E4M3", 0, "FP8_FAST", 128, 128, 2),
    "e4m3_pingpong_128x128_c1": ("E4M3", 0, "PINGPONG", 128, 128, 1),
}
PLACEMENTS = ["roles", "top", "sample"]
# CuTe's Hopper tutorial GEMM (one warpgroup; thread 0 also issues the TMA loads), annotated per
# k-tile as a user would, with annotate.py's anchors: its host code takes the kernel's address for
# cudaFuncSetAttribute and CUTLASS's cluster launcher, unchanged.
TUTORIAL = "examples/cute/tutorial/hopper/wgmma_tma_sm90.cu"
TUTORIAL_EDITS = [
    ("#include <cute/tensor.hpp>", ["#include <cutrace/trace.h>"]),
    ("CUTE_STATIC_ASSERT_V(rank(shape_MNK) == Int<3>{});                   // (M, N, K)",
     ['TRACE_GROUP("cta", 0);']),
    ("int read_pipe = read_state.index();", ['TRACE_RANGE("k_tile", "main", k_tile);'], "before"),
    ("ProducerBarType::wait(&producer_mbar[read_pipe], read_state.phase());",
     ['auto full = TRACE_RANGE_START("wait_full", "wait");'], "before"),
    ("// MMAs to cover 1 K_TILE", ["TRACE_RANGE_END(full);"], "before"),
    ("warpgroup_commit_batch();", ['TRACE_RECORD("wgmma_issued");']),
    ("int pipe = write_state.index();", ['TRACE_RANGE("tma_issue", "tma", k_tile);']),
]
WANT_GROUPS = {"producer", "consumer"}
WANT_SITES = {"load_tile", "consume"}


def defines(config):
    element, a_column, schedule, tile_m, tile_n, cluster_m = CONFIGS[config]
    out = [f"-DSWEEP_ELEMENT_{element}=1", f"-DSWEEP_A_COLUMN={a_column}",
           f"-DSWEEP_TILE_M={tile_m}", f"-DSWEEP_TILE_N={tile_n}", f"-DSWEEP_CLUSTER_M={cluster_m}"]
    if schedule != "AUTO":
        out.append(f"-DSWEEP_SCHEDULE_{schedule}=1")
    return out


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def annotate(cutlass, placement, rewrite):
    """The placement's annotated tree; (files annotated, files whose strip differs)."""
    out = WORK / f"ann_{placement}"
    rc, text = run([sys.executable, str(ROOT / "bench/cutlass/annotate.py"), str(cutlass), str(out),
                    f"--placement={placement}"])
    if rc != 0:
        raise SystemExit(f"annotate.py --placement={placement}: {text}")
    files = [Path(l) for l in text.split()]
    differs = []
    overlay = CARRY / f"overlay_{placement}"
    for f in files:
        rel = f.relative_to(out)
        stripped = WORK / f"stripped_{placement}.tmp"
        rc, msg = run([rewrite, str(f), "-o", str(stripped)])
        if rc != 0 or stripped.read_bytes() != (cutlass / rel).read_bytes():
            differs.append(f"{rel}: {msg.strip()[:200] or 'differs'}")
        stripped.unlink(missing_ok=True)
        (overlay / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, overlay / rel)
    return files, differs


def tutorial(cutlass, rewrite):
    """The annotated tutorial: (strip gives it back, rewrite exit status, its map's sites)."""
    sys.path.insert(0, str(ROOT / "bench/cutlass"))
    import annotate as annotate_py  # noqa: E402
    text = annotate_py.annotate((cutlass / TUTORIAL).read_text(), TUTORIAL_EDITS, True)
    out = CARRY / "tutorial"
    out.mkdir(parents=True, exist_ok=True)
    src = WORK / "tutorial" / "wgmma_tma_sm90.cu"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(text)
    (out / "plain").mkdir(exist_ok=True)
    shutil.copy(cutlass / TUTORIAL, out / "plain" / "wgmma_tma_sm90.cu")
    rc, msg = run([rewrite, str(src), "-o", str(out / "stripped.tmp")])
    same = rc == 0 and (out / "stripped.tmp").read_bytes() == (cutlass / TUTORIAL).read_bytes()
    (out / "stripped.tmp").unlink(missing_ok=True)
    argv = [rewrite, "--traced", str(src), "--cuda-gpu-arch=sm_90a", "-o",
            str(out / "wgmma_tma_sm90.traced.cu"), "--", "-std=c++17",
            f"-I{WORK / 'ann_roles' / 'include'}", f"-I{WORK / 'util' / 'include'}",
            f"-I{ROOT / 'runtime/include'}"]
    rc, text = run(argv)
    (out / "rewrite.txt").write_text(" ".join(argv) + "\n" + text)
    sites = set()
    for map_file in out.rglob("*.trace_map.json") if rc == 0 else []:
        for k in json.loads(map_file.read_text())["kernels"]:
            sites |= {s["name"] for s in k.get("sites", [])}
    return same, rc, text, sites


def traced(cutlass, config, placement, rewrite):
    """One rewrite: (rc, seconds, messages, {kernel: (groups, sites)})."""
    out = CARRY / "traced" / f"{config}.{placement}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    src = ROOT / "bench/cutlass/sweep_gemm.cu"
    argv = [rewrite, "--traced", str(src), "--cuda-gpu-arch=sm_90a", "-o",
            str(out / "sweep_gemm.traced.cu"), "--", "-std=c++17",
            f"-I{WORK / f'ann_{placement}' / 'include'}", f"-I{WORK / 'util' / 'include'}",
            f"-I{ROOT / 'runtime/include'}", *defines(config)]
    t0 = time.monotonic()
    rc, text = run(argv)
    seconds = time.monotonic() - t0
    (out / "rewrite.txt").write_text(" ".join(argv) + "\n" + text)
    maps = {}  # every decode map written: the source's and the traced header copies' own
    for map_file in sorted(out.rglob("*.trace_map.json")) if rc == 0 else []:
        for k in json.loads(map_file.read_text())["kernels"]:
            groups = {g["name"] for g in k.get("groups", [])}
            sites = {s["name"] for s in k.get("sites", [])}
            old = maps.get(k["kernel"], (set(), set()))
            maps[k["kernel"]] = (old[0] | groups, old[1] | sites)
    return rc, seconds, text, maps


def verdict(rc, text, maps):
    if rc != 0:
        first = next((l for l in text.splitlines() if ": error: " in l), text.strip()[:200])
        return False, "refused: " + first.split(": error: ", 1)[-1][:160]
    gemm = {k: v for k, v in maps.items() if "device_kernel" in k}
    if not gemm:
        return False, "accepted, but no map of the GEMM kernel"
    groups = set().union(*(g for g, _ in gemm.values()))
    sites = set().union(*(s for _, s in gemm.values()))
    missing = (WANT_GROUPS - groups) | (WANT_SITES - sites)
    warnings = sum(1 for l in text.splitlines() if ": warning: " in l)
    said = f"rows {'/'.join(sorted(groups))}, sites {'/'.join(sorted(sites))}" + \
        (f", {warnings} warnings" if warnings else "")
    if missing:
        return False, f"accepted, map misses {', '.join(sorted(missing))} ({said})"
    return True, "accepted: " + said


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cutlass", type=Path)
    ap.add_argument("--rewrite", default=str(ROOT / "build/bin/trace-rewrite"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--placements", default=",".join(PLACEMENTS))
    args = ap.parse_args()
    cutlass = args.cutlass.resolve()
    configs = [c for c in args.configs.split(",") if c]
    placements = [p for p in args.placements.split(",") if p]
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"unknown configuration {c}: one of {', '.join(CONFIGS)}")
    for p in placements:  # each rewrite replaces its own folder; runs of others are kept
        shutil.rmtree(CARRY / f"overlay_{p}", ignore_errors=True)
    CARRY.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(CARRY / "json", ignore_errors=True)
    # CUTLASS's utilities where the GPU machine unpacks them too (paths in the traced copies).
    shutil.rmtree(WORK / "util", ignore_errors=True)
    shutil.copytree(cutlass / "tools/util/include", WORK / "util" / "include")
    shutil.copytree("/usr/include/nlohmann", CARRY / "json" / "nlohmann")  # the runtime's JSON
    status = 0
    for p in placements:
        files, differs = annotate(cutlass, p, args.rewrite)
        print(f"placement {p}: {len(files)} headers annotated, strip gives "
              f"{len(files) - len(differs)} of them back byte for byte")
        for d in differs:
            print(f"  STRIP DIFFERS {d}")
            status = 1
    jobs = [(c, p) for c in configs for p in placements]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(jobs, pool.map(lambda j: traced(cutlass, *j, args.rewrite), jobs)))
    print(f"\n| configuration | {' | '.join(placements)} |")
    print(f"|---|{'---|' * len(placements)}")
    for c in configs:
        cells = []
        for p in placements:
            rc, seconds, text, maps = results[(c, p)]
            ok, said = verdict(rc, text, maps)
            status |= 0 if ok else 1
            cells.append(f"{said} ({seconds:.0f} s)")
        print(f"| {c} | {' | '.join(cells)} |")
    if "roles" in placements:
        same, rc, text, sites = tutorial(cutlass, args.rewrite)
        print(f"\nCuTe tutorial {TUTORIAL}: strip gives it back byte for byte: {same}; "
              f"--traced exit {rc}, sites {'/'.join(sorted(sites))}")
        status |= 0 if same and rc == 0 else 1
    with tarfile.open(CARRY / "cutlass.tgz", "w:gz") as tar:
        for d in ("include", "tools/util/include"):
            tar.add(cutlass / d, arcname=d)
    # What gpu_sweep.sh builds: every configuration and placement rewritten so far.
    done = [d.name.split(".") for d in (CARRY / "traced").glob("*.*")]
    (CARRY / "configs.txt").write_text(
        "".join(f"{c} {' '.join(defines(c))}\n" for c in CONFIGS if any(c == d for d, _ in done)))
    (CARRY / "placements.txt").write_text(
        "\n".join(p for p in PLACEMENTS if any(p == q for _, q in done)) + "\n")
    # One archive to carry (the traced header copies repeat CUTLASS's headers for every run).
    with tarfile.open(CARRY.with_suffix(".tgz"), "w:gz") as tar:
        tar.add(CARRY, arcname=".carry/sweep")
    print(f"\nfor the GPU machine: {CARRY.with_suffix('.tgz').relative_to(ROOT)} "
          f"({CARRY.with_suffix('.tgz').stat().st_size >> 20} MB; carry it, then run "
          "bench/cutlass/gpu_sweep.sh)")
    return status


if __name__ == "__main__":
    sys.exit(main())
