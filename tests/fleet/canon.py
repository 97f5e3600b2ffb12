# canon.py PROFILE.pb.gz: a pprof profile (gzip or plain) as canonical text, what fleet merge's
# output must share with drain merge's of the same files whatever the order the profiles were
# merged in (docs/FLEET.md "Merged buckets"): the sample types, period, time and duration; each
# sample as its stack (each frame its functions, or its mapping's file, build id and offset in the
# file: not the address, which follows the first process merged) and its labels, with its values
# (samples of one stack and labels summed), sorted; the comments, sorted, each verdict comment's
# sample named by its stack (not its index) and its numbers rounded to 9 significant digits (sums
# of the same doubles grouped otherwise).
import gzip, re, sys
from collections import defaultdict
from pbwire import varint

def fields(b):
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i); wt = key & 7
        if wt == 0: v, i = varint(b, i)
        elif wt == 2: n, i = varint(b, i); v = b[i:i + n]; i += n
        elif wt == 1: v = int.from_bytes(b[i:i + 8], "little"); i += 8
        elif wt == 5: v = int.from_bytes(b[i:i + 4], "little"); i += 4
        else: sys.exit("bad wire type")
        out.append((key >> 3, wt, v))
    return out

def ints(wt, v):  # a repeated varint field, packed or not
    if wt == 0: return [v]
    r, i = [], 0
    while i < len(v): x, i = varint(v, i); r.append(x)
    return r

def signed(x): return x - (1 << 64) if x >= 1 << 63 else x

raw = open(sys.argv[1], "rb").read()
b = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
top = fields(b)
strs = [v.decode("utf-8", "replace") for f, wt, v in top if f == 6]
s = lambda i: strs[i] if i < len(strs) else "?"
vt, samples, maps, locs, funcs, comments, head = [], [], {}, {}, {}, [], {}
for f, wt, v in top:
    if f in (1, 11):
        d = {k: x for k, _, x in fields(v)}
        (vt.append if f == 1 else lambda t: head.__setitem__("period_type", t))(f"{s(d.get(1, 0))}/{s(d.get(2, 0))}")
    elif f == 2: samples.append(fields(v))
    elif f == 3:
        d = {k: x for k, _, x in fields(v)}
        maps[d.get(1, 0)] = d
    elif f == 4:
        d, lines = {}, []
        for k, wt2, x in fields(v):
            if k == 4: lines.append({kk: xx for kk, _, xx in fields(x)})
            else: d[k] = x
        d["lines"] = lines
        locs[d.get(1, 0)] = d
    elif f == 5:
        d = {k: x for k, _, x in fields(v)}
        funcs[d.get(1, 0)] = d
    elif f == 13: comments.extend(ints(wt, v))
    elif f in (9, 10, 12): head[f] = signed(v)

def frame(lid):
    l = locs[lid]
    if l["lines"]:
        return "|".join(f"{s(funcs[ln.get(1, 0)].get(2, 0))}:{ln.get(2, 0)}" for ln in l["lines"])
    m = maps.get(l.get(2, 0), {})
    return f"{s(m.get(5, 0))}[{s(m.get(6, 0))}]+{l.get(3, 0) - m.get(2, 0) + m.get(4, 0):#x}"

agg, keys = defaultdict(lambda: None), []
for sm in samples:
    lids, vals, labels = [], [], []
    for k, wt, x in sm:
        if k == 1: lids += ints(wt, x)
        elif k == 2: vals += [signed(y) for y in ints(wt, x)]
        elif k == 3:
            d = {kk: xx for kk, _, xx in fields(x)}
            labels.append((s(d.get(1, 0)), s(d.get(2, 0)), signed(d.get(3, 0)), s(d.get(4, 0))))
    key = (tuple(frame(l) for l in lids), tuple(sorted(labels)))
    keys.append(key)
    agg[key] = vals if agg[key] is None else [a + c for a, c in zip(agg[key], vals)]

def rounded(c):
    if not c.startswith("msamp-verdict "): return c
    c = re.sub(r"\|sample=(\d+)", lambda m: "|sample=" + repr(keys[int(m.group(1))][0]), c)
    return re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", lambda m: f"{float(m.group()):.9g}", c)

print("types", vt, "period", head.get("period_type"), head.get(12), "time", head.get(9), "duration", head.get(10))
for key in sorted(agg): print("sample", key, agg[key])
for c in sorted(rounded(s(c)) for c in comments): print("comment", c)
