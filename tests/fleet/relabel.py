# relabel.py IN OUT SHIFT_S: a copy of a pprof profile (gzip) with its time_nanos moved by SHIFT_S
# seconds (the fleet test puts profiles in other months: drain stamps a profile with the host's
# clock at the stream's start, docs/FLEET.md "Partitioning")
import gzip, sys
from pbwire import varint, enc
b = gzip.open(sys.argv[1]).read()
out, i, done = bytearray(), 0, False
while i < len(b):
    st = i; key, i = varint(b, i); wt = key & 7
    if wt == 0:
        v, i = varint(b, i)
        if key >> 3 == 9:
            v = (v + int(float(sys.argv[3]) * 1e9)) % (1 << 64); out += enc(key) + enc(v); done = True; continue
    elif wt == 2:
        n, i = varint(b, i); i += n
    elif wt == 1: i += 8
    elif wt == 5: i += 4
    else: sys.exit("bad wire type")
    out += b[st:i]
assert done, "no time_nanos"
open(sys.argv[2], "wb").write(gzip.compress(bytes(out), mtime=0))
