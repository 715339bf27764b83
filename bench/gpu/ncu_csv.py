"""What the recorder table scripts share: kernel durations from ncu's CSV output, medians, and
how they print (imported by recorder_table.py and recorder2_table.py)."""
import csv
import os
import re
import statistics


def durations(folder, tag):
    """Kernel name -> list of gpu__time_duration.sum in us, from <folder>/ncu/<tag>.csv."""
    path = os.path.join(folder, "ncu", tag + ".csv")
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
