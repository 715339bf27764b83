#!/usr/bin/env python3
"""Instructions of one function in a cubin: its .text section in 16-byte sm_90 instructions,
less the NOPs that pad the section to its alignment (no disassembler needed).

usage: sass_count.py <cubin> <section name prefix> [--words]   (--words: one instruction a line,
in hex, instead of the count)"""
import struct
import sys

NOP = bytes.fromhex("18790000000000000000000000c00f00")


def sections(path):
    data = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, names = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]
    strtab = headers[names][4]
    for h in headers:
        name = data[strtab + h[0] : data.index(b"\0", strtab + h[0])].decode()
        yield name, data[h[4] : h[4] + h[5]]


def main():
    path, prefix = sys.argv[1:3]
    for name, text in sections(path):
        if name.startswith(prefix):
            words = [text[i : i + 16] for i in range(0, len(text), 16)]
            while words and words[-1] == NOP:
                words.pop()
            if sys.argv[3:] == ["--words"]:
                print("\n".join(w.hex() for w in words))
            else:
                print(len(words))
            return 0
    print(f"no section {prefix}* in {path}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
