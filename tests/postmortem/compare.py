#!/usr/bin/env python3
"""Usage: compare.py DRAIN ELF STREAM STOP_BYTES DUMP_FOLDED DUMP_TOP WORKDIR [tiny]

The in-use profile from a RAM dump against the streamed one at the instant of the dump.
STREAM is all the device sent (the run went on after the dump); STOP_BYTES how much of it had
arrived when the guest was stopped. Frames wholly received by then are "sent"; the records after
them were still in the device's ring (or its open frame) at the dump: the ring's unsent records,
the only difference allowed. The stream is cut into one record per frame (COBS and CRC-32 redone,
seq counting from 0), and drain reads the sent records plus the first k unsent ones, k = 0, 1, ...
until its in-use profile equals the dump's: per site (folded stacks) the in-use bytes within
rounding, and in all the in-use objects and sampled allocations of --top. Fails when no k up to
the records of one ring (4 KiB) plus one frame does.
tiny: the dump comes from the compact tables (no stacks, sizes and intervals as 8-bit codes):
every in-use slot is under [unknown stack]; the dump's sampled allocations must equal the
stream's in all and its bytes lie within 1/8 below the stream's (sizes rounded down).
Prints what matched and the unsent records it took. Exit 0 on a match, 1 otherwise."""
import os
import subprocess
import sys
import zlib

RING = 4096
TYPES = {1: "SESSION", 2: "STACK", 3: "ALLOC", 4: "FREE", 5: "LIVE", 6: "SNAP_BEGIN",
         7: "SNAP_END", 8: "DROPS", 9: "TIME", 10: "INTERVAL", 11: "REALLOC", 12: "MARK",
         13: "MAPPING", 14: "FAIL", 15: "EXT"}


def cobs_decode(b):
    out, i = bytearray(), 0
    while i < len(b):
        code = b[i]
        if code == 0 or i + code > len(b):
            return None
        out += b[i + 1:i + code]
        i += code
        if code < 0xFF and i < len(b):
            out.append(0)
    return bytes(out)


def cobs_encode(b):
    out, block = bytearray(), bytearray()
    for x in b:
        if x == 0:
            out.append(len(block) + 1)
            out += block
            block = bytearray()
        else:
            block.append(x)
            if len(block) == 254:
                out.append(255)
                out += block
                block = bytearray()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def varint(b, i):
    v, s = 0, 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def records(stream, stop):
    """(records sent by `stop`, records after): each record's bytes and type. An empty FREE (wire
    version 2: the slot the frame's latest ALLOC or REALLOC filled) is written out with its slot,
    as each record goes into a frame of its own."""
    sent, later, start = [], [], 0
    while True:
        end = stream.find(b"\0", start)
        if end < 0:
            break
        body = cobs_decode(stream[start:end])
        whole = end < stop
        start = end + 1
        if body is None or len(body) < 5:
            continue
        if zlib.crc32(body[:-4]) != int.from_bytes(body[-4:], "little"):
            continue
        i, recs, last_slot1 = 1, body[:-4], 0
        while i < len(recs):
            h = recs[i]
            n, j = h >> 4, i + 1
            if n == 15:
                n, j = varint(recs, j)
            if h & 15 == 0 or j + n > len(recs):
                break
            rec = recs[i:j + n]
            if h & 15 == 3 and n:
                last_slot1 = varint(recs, j)[0]
            elif h & 15 == 11 and n:
                last_slot1 = varint(recs, varint(recs, j)[1])[0]
            elif h == 4 and last_slot1:
                slot = put_varint(last_slot1 - 1)
                rec, last_slot1 = bytes([4 | len(slot) << 4]) + slot, 0
            (sent if whole else later).append((rec, h & 15))
            i = j + n
    return sent, later


def frame(seq, rec):
    body = bytes([seq & 0xFF]) + rec
    body += zlib.crc32(body).to_bytes(4, "little")
    return cobs_encode(body) + b"\0"


def folded(path):
    sites = {}
    with open(path) as f:
        for line in f:
            stack, _, v = line.rstrip("\n").rpartition(" ")
            sites[stack] = sites.get(stack, 0) + float(v)
    return sites


def top_inuse(path):
    """Sum of in-use objects and of sampled allocations in --top's in-use section."""
    objects = samples = 0
    on = False
    with open(path) as f:
        for line in f:
            if "sites by in-use bytes" in line:
                on = True
                continue
            if on and not line.startswith(" "):  # the next title (a dump has no allocated table)
                on = False
            if on:
                w = line.split()
                if len(w) >= 4 and w[0].isdigit():
                    objects += int(w[1])
                    samples += int(w[2])
    return objects, samples


def same_bytes(a, b):
    return abs(a - b) <= 1 + 1e-9 * max(abs(a), abs(b))


def main():
    if len(sys.argv) < 8:
        print(__doc__, file=sys.stderr)
        return 2
    drain, elf, stream_path, stop, dfold, dtop, work = sys.argv[1:8]
    tiny = len(sys.argv) > 8 and sys.argv[8] == "tiny"
    stop = int(stop)
    with open(stream_path, "rb") as f:
        stream = f.read()
    sent, later = records(stream, stop)
    # The unsent records that may have been in the ring: those of the frames in one ring's worth
    # of bytes after the stop, and one frame more.
    limit, nbytes = 0, 0
    for rec, _ in later:
        nbytes += len(rec) + 8
        if nbytes > RING + 4096:
            break
        limit += 1
    want_f, want_t = folded(dfold), top_inuse(dtop)
    want_bytes = sum(want_f.values())
    prefix = bytearray(b"\0")
    for k, (rec, _) in enumerate(sent):
        prefix += frame(k, rec)
    seq = len(sent)
    tried = 0
    for k in range(limit + 1):
        if k:
            prefix += frame(seq, later[k - 1][0])
            seq += 1
            if later[k - 1][1] in (2, 6, 8, 9, 12, 13, 14):  # no change to what is live
                continue
        path = os.path.join(work, "prefix.bin")
        with open(path, "wb") as f:
            f.write(prefix)
        res = subprocess.run([drain, "-q", "-e", elf, "-o", os.path.join(work, "prefix.pb.gz"),
                              "-t", "1000", "-s", os.path.join(work, "prefix.folded"), path],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tried += 1
        if res.returncode != 0:
            print(f"FAIL: drain on the stream prefix: exit {res.returncode}: {res.stderr}")
            return 1
        with open(os.path.join(work, "prefix.top"), "w") as f:
            f.write(res.stdout)
        got_f, got_t = folded(os.path.join(work, "prefix.folded")), top_inuse(
            os.path.join(work, "prefix.top"))
        got_bytes = sum(got_f.values())
        if tiny:
            ok = got_t[1] == want_t[1] and want_bytes <= got_bytes * 1.000001 + 1 and \
                want_bytes >= got_bytes * 0.875 - 1
        else:
            ok = set(got_f) == set(want_f) and all(same_bytes(got_f[s], want_f[s]) for s in got_f) \
                and got_t == want_t
        if ok:
            kinds = {}
            for _, t in later[:k]:
                kinds[TYPES.get(t, str(t))] = kinds.get(TYPES.get(t, str(t)), 0) + 1
            what = ", ".join(f"{n} {t}" for t, n in sorted(kinds.items())) or "none"
            print(f"ok: dump == stream at the dump{' (tiny: samples equal, bytes within 1/8)' if tiny else ''}: "
                  f"{len(want_f)} sites, {want_t[1]} sampled allocations in use, {want_t[0]} objects, "
                  f"{want_bytes:.0f} bytes (stream {got_bytes:.0f}); the ring's unsent records: {k} "
                  f"({what}) after {len(sent)} records received, {stop} bytes "
                  f"({tried} prefixes drained)")
            return 0
    print(f"FAIL: no prefix of the stream from the {len(sent)} records received to {limit} more has "
          f"the dump's in-use profile ({len(want_f)} sites, {want_t[1]} samples, {want_bytes:.0f} "
          f"bytes); with all of them: {len(got_f)} sites, {got_t[1]} samples, {got_bytes:.0f} bytes")
    for s in sorted(set(want_f) | set(got_f)):
        a, b = want_f.get(s), got_f.get(s)
        if a is None or b is None or not same_bytes(a, b):
            print(f"  dump {a} stream {b}: {s}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
