#!/usr/bin/env python3
"""Usage: mkseed.py IMAGE BASE OUT [OUT_SCAN]
       mkseed.py --whole MODE SYMBOL IMAGE BASE OUT
Makes fuzz_heapdump seeds from a real RAM image (IMAGE starting at address BASE) holding an msamp
heapdump block: the image cropped to the block and its arrays, behind fuzz_heapdump.c's 16-byte
header (OUT: the block's address given; OUT_SCAN: found by scanning), gzip-compressed. --whole:
the image from its start to the block's arrays' end (or the symbol's), its heap walked (header byte 1 = MODE:
1 heap_4, 2 heap_5, 3 newlib-nano, 7 full newlib) with the allocator's first symbol at SYMBOL (hex)."""
import gzip
import struct
import sys

whole = sys.argv[1] == "--whole"
if whole:
    mode, sym = int(sys.argv[2]), int(sys.argv[3], 16)
    sys.argv[1:] = sys.argv[4:]
img, base = open(sys.argv[1], "rb").read(), int(sys.argv[2], 0)
for i in range(0, len(img) - 4, 4):
    if img[i:i + 4] in (b"MSHD", b"DHSM"):
        end = ">" if img[i:i + 4] == b"DHSM" else "<"
        ver, ptr = struct.unpack(end + "HH", img[i + 4:i + 8])
        if ver in (3, 4) and ptr in (4, 8):
            break
else:
    sys.exit("mkseed.py: no block")
live, ways, stacks, frames = struct.unpack(end + "4I", img[i + 8:i + 24])
flags = struct.unpack(end + "I", img[i + 52:i + 56])[0] if ver >= 4 else 0
pa = i + (56 + ptr - 1) // ptr * ptr
ptrs = struct.unpack(end + ("Q" if ptr == 8 else "I") * 7, img[pa:pa + 7 * ptr])
coded = flags & 1
sizes = [live * ptr, live * (1 if coded else ptr), live * 4, live * 4, live * (1 if coded else 4),
         stacks * 16, frames * ptr]
lo, hi = base + i, base + pa + 7 * ptr
for p, n in zip(ptrs, sizes):
    if p:
        lo, hi = min(lo, p), max(hi, p + n)
lo &= ~3
if whole:
    lo, hi = base, max(hi, sym + 16)
crop = img[lo - base:hi - base]
for path, fl in ((sys.argv[3], 1), (sys.argv[4] if len(sys.argv) > 4 else None, 0)):
    if path:
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(struct.pack("<BBHIQ", fl, mode if whole else 0, (sym - lo) // 4 if whole else 0,
                                base + i - lo, lo) + crop)
print(f"{sys.argv[1]}: block at {base + i:#x}, seed of {len(crop) + 16} bytes from {lo:#x}")
