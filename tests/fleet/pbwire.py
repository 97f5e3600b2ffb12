# Protobuf wire helpers for the fleet tests' profile rewriters (relabel.py, strtab.py): a varint
# read at i (value, next index) and one encoded.
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def enc(v):
    out = bytearray()
    while True:
        c = v & 0x7f; v >>= 7
        if v: out.append(c | 0x80)
        else: out.append(c); return bytes(out)
