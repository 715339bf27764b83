#!/usr/bin/env python3
"""A window of a Perfetto trace drawn as one self-contained HTML page (SVG), for the documents'
pictures where Perfetto's own UI cannot run (no network on the machines that make them).

    render_pftrace.py TRACE.json OUT.html --kernel NAME [--nth N] [--before-us 40] [--after-us 10]
                      [--sm-tracks 8]

TRACE.json is what test/perfetto/pftrace_to_json writes for a .pftrace. The window runs from
--before-us before the N-th (0-based) slice whose name starts with NAME to --after-us after it.
Drawn: every thread track with a slice in the window (the profiler's CPU operators and runtime
calls), every stream track, and the first --sm-tracks SM slot tracks (by the trace's own order)
with slices in the window; tracks nested under their parent, slices nested by depth.
Exit 1 when no slice is named NAME.
"""
import argparse
import html
import json
import sys


def slices_by_track(events):
    """Begin/end pairs per track, with their nesting depth."""
    out, stacks = {}, {}
    for e in sorted(events, key=lambda e: (e["ts"], e["type"] != "E")):
        if e["type"] == "B":
            stacks.setdefault(e["track"], []).append(e)
        elif e["type"] == "E" and stacks.get(e["track"]):
            b = stacks[e["track"]].pop()
            out.setdefault(e["track"], []).append(
                (b["ts"], e["ts"], b["name"], len(stacks[e["track"]])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--nth", type=int, default=0)
    ap.add_argument("--before-us", type=float, default=40)
    ap.add_argument("--after-us", type=float, default=10)
    ap.add_argument("--sm-tracks", type=int, default=8)
    a = ap.parse_args()
    d = json.load(open(a.trace))
    tracks = {t["uuid"]: t for t in d["tracks"]}
    by_track = slices_by_track(d["events"])
    kernels = sorted(s for ss in by_track.values() for s in ss if s[2].startswith(a.kernel))
    if len(kernels) <= a.nth:
        sys.exit(f"render_pftrace.py: no slice #{a.nth} named {a.kernel}...")
    k = kernels[a.nth]
    t0, t1 = k[0] - a.before_us * 1000, k[1] + a.after_us * 1000
    shown, sms = [], 0
    for t in d["tracks"]:  # the trace's own order
        inside = [s for s in by_track.get(t["uuid"], []) if s[1] > t0 and s[0] < t1]
        name = t["name"]
        if name.startswith("SM "):
            if not inside or sms >= a.sm_tracks:
                continue
            sms += 1
        elif not inside and not name.startswith("stream"):
            continue
        depth = 0
        p = t.get("parent", 0)
        while p in tracks:
            depth += 1
            p = tracks[p].get("parent", 0)
        shown.append((t, inside, depth))
    width, label_w, lane_h = 1400, 300, 14
    x = lambda ts: label_w + (ts - t0) / (t1 - t0) * (width - label_w - 10)
    palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
               "#ff9da7", "#9c755f"]
    color = {}
    rows, y = [], 30
    for t, inside, depth in shown:
        lanes = 1 + max((s[3] for s in inside), default=0)
        h = lanes * lane_h + 6
        rows.append(f'<text x="{4 + 12 * depth}" y="{y + 12}" class="l">{html.escape(t["name"])}</text>')
        rows.append(f'<line x1="0" x2="{width}" y1="{y + h}" y2="{y + h}" class="g"/>')
        for b, e, name, lane in inside:
            c = color.setdefault(name.split("(")[0][:40], palette[len(color) % len(palette)])
            x0, x1 = max(x(b), label_w), min(x(e), width - 10)
            rows.append(f'<rect x="{x0:.1f}" y="{y + 3 + lane * lane_h}" width="{max(x1 - x0, 1):.1f}" '
                        f'height="{lane_h - 2}" fill="{c}"><title>{html.escape(name)} '
                        f'{(e - b) / 1000:.2f} us</title></rect>')
            if x1 - x0 > 60:
                rows.append(f'<text x="{x0 + 2:.1f}" y="{y + 13 + lane * lane_h}" class="s">'
                            f'{html.escape(name[:int((x1 - x0) / 6)])}</text>')
        y += h
    axis = "".join(
        f'<text x="{x(t0 + i * (t1 - t0) / 10):.1f}" y="20" class="l">{i * (t1 - t0) / 10000:.0f} us</text>'
        for i in range(10))
    page = (f'<!doctype html><meta charset="utf-8"><style>body{{margin:0;font:11px sans-serif}}'
            f'.l{{font-size:11px}}.s{{font-size:10px;fill:#fff}}.g{{stroke:#ddd}}</style>'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 10}">{axis}'
            f'{"".join(rows)}</svg>')
    open(a.out, "w").write(page)
    print(f"render_pftrace.py: {len(shown)} tracks, window {(t1 - t0) / 1000:.1f} us -> {a.out}")


if __name__ == "__main__":
    main()
