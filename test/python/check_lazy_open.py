"""Opening a run file does not load it: cutrace.open on a run of 256 MB and more keeps no launch's
records (its peak memory grows by far less than the file), lists every launch, and reads one
launch's records back when a table asks for them (docs/python.md, "Opening a large run").

usage: check_lazy_open.py RUN-FILE   (a version 2 run; PYTHONPATH: the built package)"""
import os
import resource
import struct
import sys
import tempfile

import cutrace

source = sys.argv[1]
TARGET_BYTES = 256 << 20
MAX_GROWTH_BYTES = 32 << 20

with open(source, "rb") as f:
    data = f.read()
# docs/FORMAT.md, "Runs": a 16-byte preamble, then sections (tag, flags, u64 length, body); a
# launch section's sequence number is the u64 at byte 56 of its body.
sections, at = [], 16
while at < len(data):
    tag, _, length = struct.unpack_from("<4sIQ", data, at)
    sections.append((tag, data[at:at + 16 + length]))
    at += 16 + length
launches = [s for tag, s in sections if tag == b"LNCH"]
assert launches, "no launch section in " + source

with tempfile.TemporaryDirectory() as work:
    big = os.path.join(work, "big.ctrace")
    written, copies = len(data), 0
    with open(big, "wb") as out:
        out.write(data[:16])
        for tag, s in sections:
            if tag != b"END ":  # the copies below would contradict its launch counts
                out.write(s)
        sequence = 1 << 20
        while written < TARGET_BYTES:
            for s in launches:
                copy = bytearray(s)
                struct.pack_into("<Q", copy, 16 + 56, sequence)
                sequence += 1
                out.write(copy)
                written += len(copy)
                copies += 1
    size = os.path.getsize(big)

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    run = cutrace.open(big)
    listed = run.launches()
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    print("run file %.0f MB, %d launches; peak memory grew by %.1f MB while opening it"
          % (size / 2**20, len(listed), growth / 2**20))
    failed = False
    if len(listed) != len(launches) + copies:
        print("FAIL %d launches listed, the file holds %d" % (len(listed), len(launches) + copies))
        failed = True
    if growth > MAX_GROWTH_BYTES:
        print("FAIL opening grew the peak memory by %.1f MB (limit %d MB)"
              % (growth / 2**20, MAX_GROWTH_BYTES >> 20))
        failed = True
    # Launches are listed by begin time: the last is a copy of the source's last.
    last = int(listed["sequence"][-1])
    copy_rows = run.rows(last)
    original = cutrace.open(source)
    if len(copy_rows) == 0 or len(copy_rows) != len(original.rows(int(original.launches()["sequence"][-1]))):
        print("FAIL launch %d read back with %d rows" % (last, len(copy_rows)))
        failed = True
sys.exit(1 if failed else 0)
