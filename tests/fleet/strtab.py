# strtab.py IN OUT OLD NEW [OLD NEW]...: a copy of a pprof profile (gzip or plain; written gzip)
# whose string table entries equal to OLD read NEW instead ("\0" in NEW a NUL byte; any bytes, as
# the command line gives them). t_push.sh makes a device label of it, one holding a NUL byte, and a
# sample type named in UTF-8.
import gzip, os, sys
from pbwire import varint, enc
raw = open(sys.argv[1], "rb").read()
b = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
subst = {os.fsencode(sys.argv[i]): os.fsencode(sys.argv[i + 1].replace("\\0", "\0"))
         for i in range(3, len(sys.argv), 2)}
out, i, done = bytearray(), 0, set()
while i < len(b):
    st = i; key, i = varint(b, i); wt = key & 7
    if wt == 0: _, i = varint(b, i)
    elif wt == 2:
        n, i = varint(b, i); i += n
        if key >> 3 == 6 and b[i - n:i] in subst:
            s = subst[b[i - n:i]]; done.add(b[i - n:i]); out += enc(key) + enc(len(s)) + s; continue
    elif wt == 1: i += 8
    elif wt == 5: i += 4
    else: sys.exit("bad wire type")
    out += b[st:i]
assert done == set(subst), f"not in the string table: {set(subst) - done}"
open(sys.argv[2], "wb").write(gzip.compress(bytes(out), mtime=0))
