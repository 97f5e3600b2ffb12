#!/usr/bin/env python3
"""Usage: mutcore.py CORE OUTDIR

Writes copies of a 64-bit little-endian ELF core (gdb gcore of x86-64) with its NT_FILE note
damaged, for t_gcore.sh's hostile cases (drain under ASan+UBSan must read each without a fault):
nofile (the note's type changed: no NT_FILE, the load bias must come from the build-id note found
in the dump), count (a count of 2^63), page0 (page size 0), page3 (page size 3), offsets (every
offset 2^62 pages: overflows), unterminated (no NUL in the paths), descsz (a descriptor size past
the segment), namesz (a name size past the segment). Prints the names written."""
import os
import struct
import sys

core = open(sys.argv[1], "rb").read()
out = sys.argv[2]
if core[:4] != b"\x7fELF" or core[4] != 2 or core[5] != 1:
    sys.exit("not a 64-bit little-endian ELF")
phoff, = struct.unpack_from("<Q", core, 0x20)
phentsize, phnum = struct.unpack_from("<HH", core, 0x36)
note = None
for i in range(phnum):
    p = phoff + i * phentsize
    ptype, = struct.unpack_from("<I", core, p)
    off, = struct.unpack_from("<Q", core, p + 8)
    filesz, = struct.unpack_from("<Q", core, p + 32)
    if ptype != 4:
        continue
    o = 0
    while o + 12 <= filesz:
        namesz, descsz, ntype = struct.unpack_from("<III", core, off + o)
        desc = o + 12 + (namesz + 3) // 4 * 4
        if ntype == 0x46494C45 and core[off + o + 12:off + o + 16] == b"CORE":
            note = (off, filesz, off + o, off + desc, descsz)
            break
        o = desc + (descsz + 3) // 4 * 4
    if note:
        break
if not note:
    sys.exit("no NT_FILE note")
seg, segsz, hdr, desc, descsz = note
count, = struct.unpack_from("<Q", core, desc)


def write(name, b):
    with open(os.path.join(out, name + ".core"), "wb") as f:
        f.write(b)
    print(name)


b = bytearray(core); struct.pack_into("<I", b, hdr + 8, 0x12345678); write("nofile", b)
b = bytearray(core); struct.pack_into("<Q", b, desc, 1 << 63); write("count", b)
b = bytearray(core); struct.pack_into("<Q", b, desc + 8, 0); write("page0", b)
b = bytearray(core); struct.pack_into("<Q", b, desc + 8, 3); write("page3", b)
b = bytearray(core)
for i in range(count):
    struct.pack_into("<Q", b, desc + 16 + i * 24 + 16, 1 << 62)
write("offsets", b)
b = bytearray(core)
names = desc + 16 + count * 24
for i in range(names, desc + descsz):
    if b[i] == 0:
        b[i] = ord("x")
write("unterminated", b)
b = bytearray(core); struct.pack_into("<I", b, hdr + 4, 0xFFFFFFF0); write("descsz", b)
b = bytearray(core); struct.pack_into("<I", b, hdr, 0xFFFFFFF0); write("namesz", b)
