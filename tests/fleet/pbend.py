# pbend.py PROFILE...: the latest of now and the profiles' ends (time_nanos + duration_nanos,
# fields 9 and 10 of pprof's Profile), in seconds since the epoch (t_fleet.sh's time ranges).
import gzip, sys, time
from pbwire import varint
end = time.time()
for path in sys.argv[1:]:
    raw = open(path, "rb").read()
    b = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    i, f = 0, {}
    while i < len(b):
        key, i = varint(b, i); wt = key & 7
        if wt == 0:
            v, i = varint(b, i); f[key >> 3] = v
        elif wt == 2:
            n, i = varint(b, i); i += n
        elif wt == 1: i += 8
        elif wt == 5: i += 4
    end = max(end, (f.get(9, 0) + f.get(10, 0)) / 1e9)
print("%.6f" % end)
